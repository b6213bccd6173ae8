// A TCP proxy that adds a fixed delay each way, for measuring at a distance on loopback
// (this kernel has no netem): every chunk is forwarded DELAY_MS after it arrived, in
// order, so a round trip through it takes 2 x DELAY_MS more. No bandwidth cap.
//
// Usage: node delay_proxy.js TARGET-PORT DELAY_MS
// Prints "listening PORT" once it listens on 127.0.0.1; stopped by its PID.
'use strict';

const net = require('net');

const [targetPort, delayMs] = process.argv.slice(2).map(Number);
if (!targetPort || !(delayMs >= 0)) {
  process.stderr.write('usage: node delay_proxy.js TARGET-PORT DELAY_MS\n');
  process.exit(2);
}

// Forwards what `from` receives to `to`, each chunk delayMs later, ends with it.
function pipeDelayed(from, to) {
  from.on('data', chunk => setTimeout(() => to.write(chunk), delayMs));
  from.on('end', () => setTimeout(() => to.end(), delayMs));
  from.on('error', () => to.destroy());
}

const server = net.createServer(client => {
  client.setNoDelay(true);
  const upstream = net.connect(targetPort, '127.0.0.1');
  upstream.setNoDelay(true);
  pipeDelayed(client, upstream);
  pipeDelayed(upstream, client);
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
