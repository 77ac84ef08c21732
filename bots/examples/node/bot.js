#!/usr/bin/env node
// Example Arena bot in Node.js.
//
// It is a gRPC *server* for arena.v1.BotService (proto/arena/v1/bot.proto). The referee is the
// client: it opens one bidirectional Play stream per match and seat, sends MatchStart, then one
// DecisionRequest per decision, then Finish or Abort. The bot answers Ready, then one
// DecisionResponse per request. Nothing here is generated: the .proto files are read at start.
//
//   node bot.js [--port 50071] [--host 127.0.0.1] [--proto DIR]
//
// The first line on stdout is "listening on HOST:PORT" (with --port 0 the port is the one the
// OS picked), so scripts can start the bot and read where to connect.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const BOT_NAME = 'node-example';
const BOT_VERSION = '1.0';
const PROTOCOL_VERSION = '1.0';
const ROLLDICE_OBSERVATION = 'arena.games.v1.rolldice.Observation';

const USAGE = `usage: node bot.js [--port P] [--host H] [--proto DIR] [--key-file PATH]
  --port P         port to serve on (default 50071; 0 = any free port)
  --host H         address to bind (default 127.0.0.1)
  --proto DIR      the repository's proto/ directory (default: ../../../proto from this script)
  --key-file PATH  the endpoint's key: play only starts that prove it (MatchStart.endpoint_proof)`;
// An endpoint's key: 16-200 printable ASCII characters without spaces (`arena bot new-key`).
const ENDPOINT_KEY = /^[\x21-\x7e]{16,200}$/;

function parseArgs(argv) {
  const args = { port: 50071, host: '127.0.0.1', proto: path.resolve(__dirname, '../../../proto'), key: null };
  for (let i = 0; i < argv.length; i++) {
    let [flag, value] = argv[i].split(/=(.*)/s, 2); // accept both "--port 5" and "--port=5"
    if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    }
    if (!['--port', '--host', '--proto', '--key-file'].includes(flag)) usageError(`unknown argument ${argv[i]}`);
    if (value === undefined) value = argv[++i];
    if (value === undefined) usageError(`${flag} needs a value`);
    if (flag === '--port') {
      if (!/^\d+$/.test(value) || Number(value) > 65535) usageError(`bad port ${value}`);
      args.port = Number(value);
    } else if (flag === '--key-file') {
      let key;
      try {
        key = fs.readFileSync(value, 'utf8').trim();
      } catch (err) {
        usageError(`--key-file ${value}: cannot read it (${err.code})`);
      }
      if (!ENDPOINT_KEY.test(key)) usageError(`--key-file ${value}: not a key (16-200 printable ASCII, no spaces)`);
      args.key = key;
    } else {
      args[flag.slice(2)] = flag === '--proto' ? path.resolve(value) : value;
    }
  }
  return args;
}

function usageError(message) {
  console.error(`bot.js: ${message}\n${USAGE}`);
  process.exit(2);
}

// bot.proto plus every game proto, as paths relative to the proto root (imports are written
// relative to it, e.g. "arena/v1/bot.proto").
function protoFiles(protoDir) {
  const gamesDir = path.join(protoDir, 'arena/games/v1');
  const games = fs.existsSync(gamesDir)
    ? fs.readdirSync(gamesDir).filter((f) => f.endsWith('.proto')).sort()
    : [];
  return ['arena/v1/bot.proto', ...games.map((f) => `arena/games/v1/${f}`)];
}

// The gRPC service definition. The loader options decide what messages look like in JS:
//   keepCase  - field names as in the .proto (decision_index), not camelCase (decisionIndex)
//   defaults  - proto3 leaves zero values off the wire; without this, seat 0 or
//               decision_index 0 would read as `undefined`
//   oneofs    - adds `body: 'start' | 'decision' | ...` naming the oneof member that is set
//   longs     - uint64 bot_seed arrives as a decimal string instead of a Long object
function loadService(protoDir, files) {
  const definition = protoLoader.loadSync(files, {
    includeDirs: [protoDir],
    keepCase: true,
    defaults: true,
    oneofs: true,
    longs: String,
    enums: String,
  });
  return grpc.loadPackageDefinition(definition).arena.v1.BotService.service;
}

// proto-loader hands google.protobuf.Any over as { type_url, value: Buffer } and keeps its
// message types to itself, so a protobufjs Root of the same files decodes the payloads.
function loadTypes(protoDir, files) {
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) => (path.isAbsolute(target) ? target : path.join(protoDir, target));
  root.loadSync(files, { keepCase: true });
  root.resolveAll();
  return root;
}

// Decode an Any to a plain object, or null when it is empty or of a type we do not know.
function unpack(root, any) {
  if (!any || !any.type_url) return null;
  // type_url is "type.googleapis.com/<full message name>": the name follows the last "/".
  const name = any.type_url.slice(any.type_url.lastIndexOf('/') + 1);
  try {
    const type = root.lookupType(name);
    const message = type.toObject(type.decode(any.value), { defaults: true, enums: String, longs: String });
    return { type: name, message };
  } catch (err) {
    return null; // unknown type (a newer game than our .proto files) or bytes that do not decode
  }
}

// mulberry32: a tiny 32-bit PRNG, enough for reproducible random play.
function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// bot_seed is a uint64 (a decimal string here); fold both halves into mulberry32's 32 bits.
function seedFrom(botSeed) {
  const big = BigInt.asUintN(64, BigInt(botSeed || 0));
  return Number((big & 0xffffffffn) ^ (big >> 32n));
}

// RollDice, decoded: keep a 4 or better, otherwise reroll. The option is found by its typed
// Action (choice STOP / REROLL) rather than by guessing the id string.
function chooseRollDice(root, request, observation) {
  const want = observation.current_roll >= 4 ? 'STOP' : 'REROLL';
  for (const option of request.options) {
    const action = unpack(root, option.action);
    if (action && action.message.choice === want) return option.id;
  }
  const byId = request.options.find((option) => option.id === want.toLowerCase());
  return byId ? byId.id : null;
}

function choose(root, request, rng) {
  const observation = unpack(root, request.observation);
  if (observation && observation.type === ROLLDICE_OBSERVATION) {
    const id = chooseRollDice(root, request, observation.message);
    if (id !== null) return id;
  }
  // Any other game (or anything unexpected): a seeded uniform pick among the legal options.
  return request.options[Math.floor(rng() * request.options.length)].id;
}

function log(message) {
  process.stderr.write(`[${BOT_NAME}] ${message}\n`);
}

// One Play stream = one match seen from one seat. All state lives in this closure.
// The service proves every start of a registration that holds this endpoint's key:
// mac = HMAC-SHA256(key, "arena-endpoint-v2" + nonce + time_ms (8 bytes BE) + seat (4 bytes BE)
// + match_id). A proof counts once (its nonce is remembered) and within 300 s of our clock.
const PROOF_WINDOW_MS = 300 * 1000;
const seenNonces = new Map(); // nonce (hex) -> when it may be forgotten (ms)

function proves(key, start) {
  const proof = start.endpoint_proof;
  if (!proof || !proof.nonce || proof.nonce.length !== 16 || !proof.mac || proof.mac.length !== 32) return false;
  const head = Buffer.alloc(12);
  head.writeBigUInt64BE(BigInt(proof.time_ms.toString()), 0);
  head.writeUInt32BE(start.seat, 8);
  const signed = Buffer.concat([
    Buffer.from('arena-endpoint-v2'),
    Buffer.from(proof.nonce),
    head,
    Buffer.from(start.match_id || '', 'utf8'),
  ]);
  const expected = crypto.createHmac('sha256', key).update(signed).digest();
  if (!crypto.timingSafeEqual(expected, Buffer.from(proof.mac))) return false;
  const now = Date.now();
  if (Math.abs(now - Number(proof.time_ms.toString())) > PROOF_WINDOW_MS) return false;
  for (const [nonce, until] of seenNonces) if (until < now) seenNonces.delete(nonce);
  const nonce = Buffer.from(proof.nonce).toString('hex');
  if (seenNonces.has(nonce)) return false; // a replay
  seenNonces.set(nonce, now + 2 * PROOF_WINDOW_MS);
  return true;
}

function makePlay(root, key) {
  return function play(call) {
    let rng = mulberry32(0); // replaced at MatchStart; a default keeps odd referees working
    let label = 'match ?';
    let over = false; // finish or abort seen: the match ended normally

    const send = (message) => {
      // The referee may have gone away between its request and our answer.
      if (!call.cancelled && call.writable) call.write(message);
    };
    const finish = () => {
      if (call.writable) call.end();
    };

    call.on('data', (message) => {
      try {
        switch (message.body) {
          case 'start': {
            const start = message.start;
            label = `match ${start.match_id || '?'} seat ${start.seat}`;
            if (key !== null && !proves(key, start)) {
              // Not a registration that holds our key (someone else's, or a relay's): no play.
              log(`${label}: refused: the start does not prove this endpoint's key`);
              over = true;
              call.emit('error', {
                code: grpc.status.PERMISSION_DENIED,
                details: 'this endpoint has a key and plays only starts that prove it, once (MatchStart.endpoint_proof)',
              });
              break;
            }
            if (!String(start.protocol_version).startsWith('1.')) {
              log(`${label}: protocol ${start.protocol_version} may not be understood (we speak ${PROTOCOL_VERSION})`);
            }
            rng = mulberry32(seedFrom(start.bot_seed));
            log(`${label}: start ${start.game_id} ${start.game_version}, ${start.players} players`);
            send({
              ready: {
                protocol_version: PROTOCOL_VERSION,
                bot_name: BOT_NAME,
                bot_version: BOT_VERSION,
                game_id: '', // "" = any game
                game_version: '',
              },
            });
            break;
          }
          case 'decision': {
            const request = message.decision;
            let optionId;
            try {
              optionId = choose(root, request, rng);
            } catch (err) {
              // Never leave a request unanswered: silence is a timeout, a wrong id only illegal.
              log(`${label}: decision ${request.decision_index}: ${err.stack || err}`);
              optionId = request.options.length ? request.options[0].id : '';
            }
            // Always echo decision_index and request_id: the referee matches answers to requests
            // by request_id (an unpredictable number, so an answer cannot precede its request).
            send({
              decision: {
                decision_index: request.decision_index,
                request_id: request.request_id, // a decimal string (longs: String); sent back as is
                option_id: optionId,
              },
            });
            break;
          }
          case 'finish': {
            const result = message.finish.result || { seats: [] };
            const seats = result.seats.map((s) => `seat ${s.seat}: score ${s.score} rank ${s.rank}`).join(', ');
            log(`${label}: finish ${result.summary || ''} [${seats}]`);
            over = true;
            finish();
            break;
          }
          case 'abort':
            log(`${label}: abort (${message.abort.verdict}) ${message.abort.reason}`);
            over = true;
            finish();
            break;
          default:
            log(`${label}: ignoring a message with no known body`);
        }
      } catch (err) {
        // A bug in our handling must not take the server (and every other match) down.
        log(`${label}: error handling ${message.body}: ${err.stack || err}`);
      }
    });
    // The referee closed its side (grpc-js also ends the read side when the referee cancels):
    // close ours too. Streams that end after finish/abort are the normal case, not news.
    call.on('end', () => {
      if (!over) log(`${label}: the referee closed the stream before finish/abort`);
      finish();
    });
    call.on('cancelled', () => {
      if (!over && call.writable) log(`${label}: cancelled by the referee`);
    });
    call.on('error', (err) => log(`${label}: stream error: ${err.message}`));
  };
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(path.join(args.proto, 'arena/v1/bot.proto'))) {
    usageError(`no arena/v1/bot.proto under ${args.proto} (use --proto DIR)`);
  }
  const files = protoFiles(args.proto);
  const service = loadService(args.proto, files);
  const root = loadTypes(args.proto, files);

  const server = new grpc.Server({
    // The referee sends keepalive pings every 30 s, possibly while no match is running. A
    // server that polices pings (gRPC C-core: Python, C++, ...) would answer GOAWAY
    // "too_many_pings" without these two; grpc-js 1.14 does not police them, but a port of
    // this bot to another language must keep them.
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.http2.min_ping_interval_without_data_ms': 10000,
    // Observations of big games can exceed gRPC's default 4 MiB.
    'grpc.max_receive_message_length': 16 * 1024 * 1024,
  });
  server.addService(service, { Play: makePlay(root, args.key) });

  const address = args.host.includes(':') ? `[${args.host}]` : args.host; // IPv6 literals
  server.bindAsync(`${address}:${args.port}`, grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) {
      console.error(`bot.js: cannot listen on ${address}:${args.port}: ${err.message}`);
      process.exit(1);
    }
    // Tests parse this line; stdout to a pipe or file is written synchronously by Node.
    process.stdout.write(`listening on ${address}:${port}\n`);
  });

  let stopping = false;
  const shutdown = (signal) => {
    if (stopping) process.exit(1); // a second signal: stop now
    stopping = true;
    log(`${signal}: shutting down`);
    // Let running streams end for a moment, then cut them.
    const force = setTimeout(() => {
      server.forceShutdown();
      process.exit(0);
    }, 2000);
    server.tryShutdown(() => {
      clearTimeout(force);
      process.exit(0);
    });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main();
