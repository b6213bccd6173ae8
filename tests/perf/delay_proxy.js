// A TCP proxy that puts a distance between a client and a server on loopback (this kernel
// has no netem): every byte crosses it DELAY_MS later each way, so a round trip takes
// 2 x DELAY_MS more, and a new connection pays one round trip before its first byte (the
// server sees it DELAY_MS after the client connected), as a TCP handshake does.
// --cap-mbit N: each direction is one link of N Mbit/s shared by all connections.
// Each connection holds at most 4 MiB per direction here (reading pauses above that):
// memory stays bounded, and like a TCP window of about 8 MiB a connection carries no
// more than that per round trip.
//
// --ftp: the control connection's replies are read; each 227 (PASV) and 229 (EPSV) reply
// is rewritten to a port of the proxy that forwards, as delayed, to the server's data port,
// so data connections cross the same distance. Active mode (PORT, EPRT) is not proxied.
// --tls PEM (with --ftp, for FTPS with explicit TLS): after AUTH TLS the proxy ends the control
// connection's TLS itself with PEM's key and certificate (the server's own, so the client
// checks the same certificate) and speaks TLS to the server, to go on reading the replies;
// data connections pass as they are, TLS end to end.
//
// --most FILE: FILE holds the most connections to the listening port open at once so far,
// and after a blank the number made in all (a test's check of how many a client uses; FTP
// data connections not counted).
//
// --commands FILE (with --ftp): FILE gets the verb of each command sent in the clear.
// Usage: node delay_proxy.js TARGET-PORT DELAY_MS [--cap-mbit N] [--ftp [--tls PEM] [--commands FILE]] [--most FILE]
// Prints "listening PORT" once it listens on 127.0.0.1; stopped by its PID.
'use strict';

const fs = require('fs');
const net = require('net');
const tls = require('tls');
const { Duplex } = require('stream');

const HOST = '127.0.0.1';
const WINDOW = 4 << 20;

const usage = () => {
  process.stderr.write('usage: node delay_proxy.js TARGET-PORT DELAY_MS [--cap-mbit N] [--ftp [--tls PEM] [--commands FILE]] [--most FILE]\n');
  process.exit(2);
};
const argv = process.argv.slice(2);
const [targetPort, delayMs] = argv.slice(0, 2).map(Number);
let capMbit = 0, ftp = false, pem = null, mostFile = null, commandsFile = null;
for (let i = 2; i < argv.length; i++) {
  if (argv[i] === '--cap-mbit') capMbit = Number(argv[++i]);
  else if (argv[i] === '--ftp') ftp = true;
  else if (argv[i] === '--tls' && argv[i + 1]) pem = fs.readFileSync(argv[++i]);
  else if (argv[i] === '--most' && argv[i + 1]) mostFile = argv[++i];
  else if (argv[i] === '--commands' && argv[i + 1]) commandsFile = argv[++i];
  else usage();
}
if (!(targetPort > 0) || !(delayMs >= 0) || !(capMbit >= 0) || ((pem || commandsFile) && !ftp)) usage();
const bytesPerMs = capMbit * 1000 / 8;
const linkIdleAt = { up: 0, down: 0 }; // when each direction's shared link is free again (ms)

// One direction of one connection: each chunk (null: the end) goes to `deliver` once it
// has crossed, in order; `moved` is called after each delivery.
class Path {
  constructor(dir, deliver, moved) {
    Object.assign(this, { dir, deliver, moved, queue: [], bytes: 0, timer: null, lastAt: 0 });
  }
  send(chunk) {
    let at = performance.now();
    if (chunk && bytesPerMs) at = linkIdleAt[this.dir] = Math.max(at, linkIdleAt[this.dir]) + chunk.length / bytesPerMs;
    this.lastAt = Math.max(at + delayMs, this.lastAt);
    this.queue.push({ at: this.lastAt, chunk });
    if (chunk) this.bytes += chunk.length;
    if (!this.timer) this.flush();
  }
  flush() {
    this.timer = null;
    const now = performance.now();
    while (this.queue.length && this.queue[0].at <= now) {
      const { chunk } = this.queue.shift();
      if (chunk) this.bytes -= chunk.length;
      this.deliver(chunk);
    }
    if (this.queue.length) this.timer = setTimeout(() => this.flush(), this.queue[0].at - now);
    this.moved();
  }
  stop() { clearTimeout(this.timer); this.queue = []; }
}

// The client seen from the server's end of the distance: reading gives what the client
// sent once it has crossed; what is written reaches the client once it has crossed back.
function across(client) {
  let open = false, wanted = true, writeDone = null, endDone = null;
  const up = new Path('up', chunk => { if (!far.push(chunk)) wanted = false; }, () => readMore());
  const down = new Path('down', chunk => {
    if (client.destroyed) return;
    if (chunk) client.write(chunk);
    else { client.end(); endDone(); }
  }, () => writeMore());
  const readMore = () => { if (open && wanted && up.bytes < WINDOW) client.resume(); };
  const writeMore = () => {
    if (!writeDone || down.bytes + client.writableLength >= WINDOW) return;
    const done = writeDone;
    writeDone = null;
    done();
  };
  const far = new Duplex({
    read() { wanted = true; readMore(); },
    write(chunk, _encoding, done) { writeDone = done; down.send(chunk); writeMore(); },
    final(done) { endDone = done; down.send(null); },
    destroy(err, done) { up.stop(); down.stop(); if (err) client.destroy(); done(err); },
  });
  client.setNoDelay(true);
  client.pause();
  setTimeout(() => { open = true; readMore(); }, 2 * delayMs);
  client.on('data', chunk => { up.send(chunk); if (up.bytes >= WINDOW) client.pause(); });
  client.on('end', () => up.send(null));
  client.on('drain', writeMore);
  client.on('error', err => far.destroy(err));
  return far;
}

// Takes `client` across the distance to the server's PORT, then hands both ends to `talk`.
function relay(client, port, talk) {
  const far = across(client);
  setTimeout(() => {
    if (far.destroyed) return;
    const server = net.connect({ port, host: HOST, allowHalfOpen: true });
    server.setNoDelay(true);
    server.on('error', err => far.destroy(err));
    far.on('error', () => server.destroy());
    talk(far, server);
  }, delayMs);
}

const pipeBoth = (far, server) => { far.pipe(server); server.pipe(far); };

// A port of the proxy for one data connection, relayed to the server's data PORT.
function dataPort(port) {
  return new Promise(resolve => {
    const listener = net.createServer({ allowHalfOpen: true }, client => {
      listener.close();
      relay(client, port, pipeBoth);
    });
    setTimeout(() => listener.close(), 120000).unref();
    // Thousands of small files through here leave their ports in TIME_WAIT: when no
    // ephemeral port is free (EADDRINUSE), try again shortly instead of dying.
    let tries = 0;
    listener.on('error', err => {
      if (err.code !== 'EADDRINUSE' || ++tries > 200) throw err;
      setTimeout(() => listener.listen(0, HOST), 50);
    });
    listener.listen(0, HOST, () => resolve(listener.address().port));
  });
}

// A server's reply line, with a passive data port of the server's replaced by one of ours.
async function rewrite(line) {
  let m = /^227 .*?(\d+),(\d+),(\d+),(\d+),(\d+),(\d+)/.exec(line);
  if (m) {
    const p = await dataPort(Number(m[5]) * 256 + Number(m[6]));
    return `227 Entering Passive Mode (127,0,0,1,${p >> 8},${p & 255})\r\n`;
  }
  m = /^229 .*\(\|\|\|(\d+)\|\)/.exec(line);
  if (m) return `229 Extended Passive Mode Entered (|||${await dataPort(Number(m[1]))}|)\r\n`;
  return line;
}

// FTP's control connection: commands pass as they are, replies line by line through rewrite().
function ftpControl(far, server) {
  let client = far, replies = server, pending = Promise.resolve(), partial = '';
  far.pipe(server);
  if (commandsFile) logCommands(far);
  const onReply = chunk => {
    const lines = (partial + chunk.toString('latin1')).split(/(?<=\n)/);
    partial = lines[lines.length - 1].endsWith('\n') ? '' : lines.pop();
    for (const line of lines) {
      pending = pending.then(async () => {
        client.write(Buffer.from(await rewrite(line), 'latin1'));
        if (client === far && line.startsWith('234 ')) pem ? startTls() : passThrough();
      });
    }
  };
  const onEnd = () => { pending = pending.then(() => client.end()); };
  replies.on('data', onReply).on('end', onEnd);
  // After AUTH TLS's 234, without PEM: the rest passes as it is (data connections go
  // straight to the server, undelayed: the replies that name them cannot be read).
  const passThrough = () => { replies.off('data', onReply).off('end', onEnd); replies.pipe(far); };
  // After AUTH TLS's 234: TLS with the client (across the distance) and with the server.
  const startTls = () => {
    far.unpipe(server);
    replies.off('data', onReply).off('end', onEnd);
    client = new tls.TLSSocket(far, { isServer: true, key: pem, cert: pem });
    replies = tls.connect({ socket: server, ca: pem, host: HOST });
    client.on('error', err => far.destroy(err));
    replies.on('error', () => server.destroy());
    client.pipe(replies);
    replies.on('data', onReply).on('end', onEnd);
  };
}

// --commands: the verb of each command a client sends in the clear (SITE with its own
// verb: "SITE CHMOD"), one per line; arguments, and so the password, are not written.
function logCommands(far) {
  let partial = '', clear = true;
  far.on('data', chunk => {
    if (!clear) return;
    const lines = (partial + chunk.toString('latin1')).split('\n');
    partial = lines.pop();
    const verbs = [];
    for (const line of lines) {
      const words = line.trim().split(/\s+/);
      const verb = (words[0] || '').toUpperCase();
      verbs.push(verb === 'SITE' ? `SITE ${(words[1] || '').toUpperCase()}` : verb);
      if (verb === 'AUTH') clear = false; // what follows is TLS
    }
    if (verbs.length) fs.appendFileSync(commandsFile, verbs.map(v => v + '\n').join(''));
  });
}

let openNow = 0, most = 0, made = 0;
const proxy = net.createServer({ allowHalfOpen: true }, client => {
  if (mostFile) {
    most = Math.max(most, ++openNow);
    fs.writeFileSync(mostFile, `${most} ${++made}\n`);
    client.on('close', () => openNow--);
  }
  relay(client, targetPort, ftp ? ftpControl : pipeBoth);
});
proxy.listen(0, HOST, () => console.log(`listening ${proxy.address().port}`));
