import sys

try:
    from arena.cli import main
except KeyboardInterrupt:  # a Ctrl-C while Arena loads: nothing started yet
    print("arena: interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
