// Small HTTP servers on 127.0.0.1 for the S3 faults s3rver cannot show. Prints the port
// it listens on (kernel-picked) as its first stdout line; appends one JSON line per request
// ({method, url, bytes, body?}) or connection ({connect: true}) to LOG before answering.
//
// Usage: node s3_stub.js MODE LOG [TARGET]
//   silent     accepts connections and never answers (a stalled server)
//   html       answers everything with 502 and an HTML page (a proxy or load balancer)
//   truncated  answers 200 with a ListBucketResult cut off mid-element
//   multipart  answers like S3 to multipart uploads, including the AbortMultipartUpload
//              (DELETE ?uploadId) s3rver lacks; keeps the CompleteMultipartUpload body
//   proxy      forwards every request to TARGET (http://127.0.0.1:PORT), recording it
'use strict';

const fs = require('fs');
const http = require('http');
const net = require('net');

const [mode, logFile, target] = process.argv.slice(2);
if (!mode || !logFile) {
  process.stderr.write('usage: node s3_stub.js MODE LOG [TARGET]\n');
  process.exit(2);
}
const record = entry => fs.appendFileSync(logFile, JSON.stringify(entry) + '\n');
fs.writeFileSync(logFile, '');

function query(url) {
  return new URL(url, 'http://127.0.0.1').searchParams;
}

function readBody(req, done) {
  const chunks = [];
  let bytes = 0;
  req.on('data', c => {
    bytes += c.length;
    if (bytes <= 64 * 1024) chunks.push(c); // only small bodies (XML) are kept
  });
  req.on('end', () => done(bytes, Buffer.concat(chunks).toString('utf8')));
}

const xml = body => '<?xml version="1.0" encoding="UTF-8"?>\n' + body;

function multipart(req, res, bytes) {
  const q = query(req.url);
  const send = (status, headers, text) => {
    res.writeHead(status, headers);
    res.end(text);
  };
  if (req.method === 'HEAD') return send(404, {});
  if (req.method === 'POST' && q.has('uploads'))
    return send(200, { 'Content-Type': 'application/xml' },
      xml('<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key>' +
          '<UploadId>stub-upload-1</UploadId></InitiateMultipartUploadResult>'));
  if (req.method === 'PUT' && q.has('partNumber'))
    return send(200, { ETag: `"part-${q.get('partNumber')}-${bytes}"` }, '');
  if (req.method === 'POST' && q.has('uploadId'))
    return send(200, { 'Content-Type': 'application/xml' },
      xml('<CompleteMultipartUploadResult><ETag>"done-1"</ETag></CompleteMultipartUploadResult>'));
  if (req.method === 'DELETE' && q.has('uploadId')) return send(204, {});
  if (req.method === 'PUT') return send(200, { ETag: '"whole"' }, '');
  return send(404, { 'Content-Type': 'application/xml' },
    xml('<Error><Code>NoSuchKey</Code><Message>no such key</Message></Error>'));
}

const proxy = (req, res) => require('../lib/stub_proxy.js')(target, req, res);

let server;
if (mode === 'silent') {
  const held = [];
  server = net.createServer(socket => {
    record({ connect: true });
    held.push(socket); // kept open, never answered
    socket.on('error', () => {});
  });
} else {
  server = http.createServer((req, res) => {
    if (mode === 'proxy') {
      record({ method: req.method, url: req.url });
      return proxy(req, res);
    }
    readBody(req, (bytes, body) => {
      const entry = { method: req.method, url: req.url, bytes };
      if (req.method === 'POST') entry.body = body;
      record(entry);
      if (mode === 'html') {
        res.writeHead(502, { 'Content-Type': 'text/html' });
        return res.end('<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>' +
                       '<body><h1>502 Bad Gateway</h1><hr>nginx</body></html>\n');
      }
      if (mode === 'truncated') {
        res.writeHead(200, { 'Content-Type': 'application/xml' });
        return res.end(xml('<ListBucketResult><Name>strata-test</Name><IsTruncated>false</IsTruncated>' +
                           '<Contents><Key>a.txt</Key><Size>12</Si'));
      }
      if (mode === 'multipart') return multipart(req, res, bytes);
      res.writeHead(500);
      res.end();
    });
  });
}
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\n'));
