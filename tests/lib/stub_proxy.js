// The recording proxy of the stub servers (tests/s3/s3_stub.js, tests/webdav/webdav_stub.js):
// forwards a request to TARGET (http://127.0.0.1:PORT) and streams the answer back.
'use strict';

const http = require('http');

module.exports = function proxy(target, req, res) {
  const to = new URL(target);
  const out = http.request(
    { host: '127.0.0.1', port: to.port, method: req.method, path: req.url, headers: req.headers },
    answer => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    });
  out.on('error', () => res.destroy());
  req.pipe(out);
};
