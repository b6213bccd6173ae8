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
//   store      a bucket in memory that keeps every key exactly as given, as S3 does ("dst/..",
//              "logs//b", "a/./b": s3rver cannot hold them); TARGET is a JSON file
//              {"bucket": NAME, "objects": {KEY: TEXT, …}, "listedSizes": {KEY: N}} to start
//              with (a listing says N bytes for KEY, whatever it holds). ListObjectsV2 (prefix,
//              delimiter, max-keys, continuation-token), HEAD/GET/PUT/DELETE of objects, copy,
//              DeleteObjects. Prints the keys it holds to TARGET.keys on every change.
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

// The "store" mode's bucket: key -> Buffer, keys exactly as they came.
let bucketName = '';
const objects = new Map();
let listedSizes = {};
function saveKeys() {
  fs.writeFileSync(target + '.keys', JSON.stringify([...objects.keys()].sort()) + '\n');
}
const esc = t => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const etagOf = data => '"' + require('crypto').createHash('md5').update(data).digest('hex') + '"';

function store(req, res, body) {
  const url = new URL(req.url, 'http://127.0.0.1');
  const q = url.searchParams;
  // Path style: /BUCKET or /BUCKET/KEY; the key is decoded, never normalised.
  const raw = req.url.split('?')[0];
  const slash = raw.indexOf('/', 1);
  const bucket = decodeURIComponent(slash < 0 ? raw.slice(1) : raw.slice(1, slash));
  const key = slash < 0 ? null : decodeURIComponent(raw.slice(slash + 1));
  const send = (status, headers, text) => { res.writeHead(status, headers); res.end(text); };
  const xmlHead = { 'Content-Type': 'application/xml' };
  const missing = code => send(404, xmlHead, xml(`<Error><Code>${code}</Code><Message>not found</Message></Error>`));
  if (bucket !== bucketName) return missing('NoSuchBucket');
  if (key === null || key === '') {
    if (req.method === 'HEAD') return send(200, {}, '');
    if (req.method === 'POST' && q.has('delete')) {
      const deleted = [];
      for (const m of body.matchAll(/<Key>([\s\S]*?)<\/Key>/g)) {
        const k = m[1].replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
        objects.delete(k);
        deleted.push(`<Deleted><Key>${esc(k)}</Key></Deleted>`);
      }
      saveKeys();
      return send(200, xmlHead, xml(`<DeleteResult>${deleted.join('')}</DeleteResult>`));
    }
    if (req.method !== 'GET') return send(405, {}, '');
    const prefix = q.get('prefix') || '', delimiter = q.get('delimiter') || '';
    const max = Math.min(1000, parseInt(q.get('max-keys') || '1000', 10) || 1000);
    const after = q.has('continuation-token') ? Buffer.from(q.get('continuation-token'), 'base64').toString('utf8') : null;
    const keys = [...objects.keys()].filter(k => k.startsWith(prefix)).sort();
    const items = []; // [sortKey, xml]
    const seen = new Set();
    for (const k of keys) {
      const rest = k.slice(prefix.length);
      const cut = delimiter ? rest.indexOf(delimiter) : -1;
      if (cut >= 0) {
        const p = prefix + rest.slice(0, cut + delimiter.length);
        if (!seen.has(p)) { seen.add(p); items.push([p, `<CommonPrefixes><Prefix>${esc(p)}</Prefix></CommonPrefixes>`]); }
      } else {
        const data = objects.get(k);
        items.push([k, `<Contents><Key>${esc(k)}</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified>` +
                       `<ETag>${esc(etagOf(data))}</ETag><Size>${listedSizes[k] ?? data.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`]);
      }
    }
    const from = after === null ? 0 : items.findIndex(([k]) => k > after);
    const page = from < 0 ? [] : items.slice(from, from + max);
    const truncated = from >= 0 && from + max < items.length;
    const next = truncated ? `<NextContinuationToken>${Buffer.from(page[page.length - 1][0]).toString('base64')}</NextContinuationToken>` : '';
    return send(200, xmlHead, xml(`<ListBucketResult><Name>${esc(bucket)}</Name><Prefix>${esc(prefix)}</Prefix>` +
      `<KeyCount>${page.length}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${next}` +
      page.map(([, x]) => x).join('') + '</ListBucketResult>'));
  }
  const data = objects.get(key);
  switch (req.method) {
  case 'HEAD':
  case 'GET':
    if (!data) return req.method === 'HEAD' ? send(404, {}, '') : missing('NoSuchKey');
    return send(200, { 'Content-Length': data.length, ETag: etagOf(data), 'Last-Modified': 'Thu, 01 Jan 2026 00:00:00 GMT' },
                req.method === 'GET' ? data : undefined);
  case 'PUT': {
    const source = req.headers['x-amz-copy-source'];
    if (source) {
      const from = decodeURIComponent(source.replace(/^\//, '').split('/').slice(1).join('/'));
      if (!objects.has(from)) return missing('NoSuchKey');
      objects.set(key, objects.get(from));
      saveKeys();
      return send(200, xmlHead, xml(`<CopyObjectResult><ETag>${esc(etagOf(objects.get(key)))}</ETag></CopyObjectResult>`));
    }
    objects.set(key, body);
    saveKeys();
    return send(200, { ETag: etagOf(body) }, '');
  }
  case 'DELETE':
    objects.delete(key);
    saveKeys();
    return send(204, {}, '');
  }
  return send(405, {}, '');
}

if (mode === 'store') {
  const seed = JSON.parse(fs.readFileSync(target, 'utf8'));
  bucketName = seed.bucket;
  listedSizes = seed.listedSizes || {};
  for (const [k, v] of Object.entries(seed.objects)) objects.set(k, Buffer.from(v));
  saveKeys();
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
    if (mode === 'store') {
      const chunks = [];
      req.on('data', c => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        record({ method: req.method, url: req.url, bytes: body.length });
        store(req, res, req.method === 'POST' ? body.toString('utf8') : body);
      });
      return;
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
