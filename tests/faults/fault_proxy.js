// A faulty network between Strata and a real HTTP server (s3rver, lighttpd), for the fault
// suite: forwards every request to TARGET on 127.0.0.1 and, picked at random with a fixed
// seed, answers some with 503, cuts some connections in the middle of a body, and delays
// all of them. Each fault injected is one line in LOG ("fail|cut|delay METHOD PATH").
//
// Usage: node fault_proxy.js TARGET-PORT LOG [fail=RATE] [cut=RATE] [delay=MS] [seed=N] [port=P]
//   fail=0.02   2 % of requests get "503 Slow Down" (the request body is read first)
//   cut=0.01    1 % of requests lose their connection half-way: an upload after part of its
//               body reached the proxy (the server never sees the request), a download
//               after part of the answer's body went out
//   delay=20    every request waits 20 ms before it is forwarded
//   share=0.05  only this share of requests is delayed (drawn at random; default all): a
//               known latency distribution for the benchmark's percentiles
//   trace=1     also log every request, query included ("req METHOD PATH?QUERY")
//   port=P      listen on P (default: a port the kernel picks), e.g. to stand in for an
//               earlier proxy with no faults, so a rerun reaches the server by the same URI
//   hold=METHOD requests of METHOD (MOVE, PUT, ...) are never forwarded nor answered
//               ("hold METHOD PATH"): the client waits, e.g. to be killed right there
//   lose=METHOD the first request of METHOD reaches the server, which does it, but its answer
//               is lost with the connection ("lose METHOD PATH"), as when a server dies
//               right after the work
//   outage=MS   after a lost answer, every request for MS loses its connection unanswered
//               ("down METHOD PATH"), as if the server were down
// Prints "listening PORT" once it listens on 127.0.0.1.
'use strict';

const http = require('http');
const fs = require('fs');

const [targetPort, logPath, ...opts] = process.argv.slice(2);
const conf = { fail: 0, cut: 0, delay: 0, share: 1, seed: 1, port: 0, trace: 0, hold: '', lose: '', outage: 0 };
for (const o of opts) {
  const h = /^(hold|lose)=([A-Z]+)$/.exec(o);
  if (h) { conf[h[1]] = h[2]; continue; }
  const m = /^(fail|cut|delay|share|seed|port|trace|outage)=([0-9.]+)$/.exec(o);
  if (!m) { console.error(`fault_proxy: bad option ${o}`); process.exit(2); }
  conf[m[1]] = Number(m[2]);
}
if (!/^[0-9]+$/.test(targetPort || '') || !logPath) {
  console.error('usage: node fault_proxy.js TARGET-PORT LOG [fail=RATE] [cut=RATE] [delay=MS] [seed=N]');
  process.exit(2);
}

// xorshift32: the same seed gives the same faults for the same sequence of requests.
let state = (conf.seed >>> 0) || 1;
function random() {
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state / 4294967296;
}

const log = fs.openSync(logPath, 'a');
function record(kind, req) {
  fs.writeSync(log, `${kind} ${req.method} ${req.url.split('?')[0]}\n`);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

let downUntil = 0; // a lost answer starts an outage (outage=MS) that lasts until then

function forward(req, res, cutAfter, lose = false) {
  const out = http.request(
    { host: '127.0.0.1', port: Number(targetPort), method: req.method, path: req.url, headers: req.headers, agent },
    answer => {
      if (lose) {
        // The server did the work; its answer never reaches the client.
        answer.resume();
        answer.on('end', () => { downUntil = Date.now() + conf.outage; res.socket.destroy(); });
        return;
      }
      res.writeHead(answer.statusCode, answer.headers);
      if (cutAfter === null) { answer.pipe(res); return; }
      // A download cut half-way: some of the body goes out, then the connection drops.
      const length = Number(answer.headers['content-length'] || 0);
      const limit = Math.max(1, Math.floor(length * cutAfter));
      let sent = 0;
      answer.on('data', chunk => {
        if (sent >= limit) return;
        const take = chunk.subarray(0, Math.min(chunk.length, limit - sent));
        sent += take.length;
        res.write(take);
        if (sent >= limit) { answer.destroy(); res.socket.destroy(); }
      });
      answer.on('end', () => res.end());
    });
  out.on('error', () => res.socket && res.socket.destroy());
  req.pipe(out);
}

const server = http.createServer((req, res) => {
  if (conf.trace) fs.writeSync(log, `req ${req.method} ${req.url}\n`);
  if (req.method === conf.hold) {
    record('hold', req);
    req.resume(); // read the body, answer never
    return;
  }
  if (Date.now() < downUntil) {
    record('down', req);
    req.socket.destroy();
    return;
  }
  if (req.method === conf.lose) {
    record('lose', req);
    conf.lose = ''; // only the first
    forward(req, res, null, true);
    return;
  }
  const go = () => {
    const roll = random();
    if (roll < conf.fail) {
      record('fail', req);
      req.resume();
      req.on('end', () => {
        const body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>' +
          '<Message>Please reduce your request rate.</Message></Error>';
        res.writeHead(503, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      });
      return;
    }
    if (roll < conf.fail + conf.cut) {
      const length = Number(req.headers['content-length'] || 0);
      if (length > 0) {
        // An upload cut half-way: the server never sees it.
        record('cut', req);
        let seen = 0;
        req.on('data', chunk => {
          seen += chunk.length;
          if (seen >= length / 2) req.socket.destroy();
        });
        req.on('end', () => req.socket.destroy());
        return;
      }
      if (req.method === 'GET') {
        record('cut', req);
        forward(req, res, 0.5);
        return;
      }
    }
    forward(req, res, null);
  };
  // A draw only with a share below 1: the other faults' sequence stays as it was.
  if (conf.delay > 0 && (conf.share >= 1 || random() < conf.share)) {
    record('delay', req);
    setTimeout(go, conf.delay);
  } else {
    go();
  }
});
server.keepAliveTimeout = 30000;
server.listen(conf.port, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
