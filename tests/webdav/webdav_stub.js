// Small HTTP servers on 127.0.0.1 for the WebDAV faults lighttpd cannot show. Prints the
// port it listens on (kernel-picked) as its first stdout line; appends one JSON line per
// request ({method, url, depth}) to LOG before answering.
//
// Usage: node webdav_stub.js MODE LOG [TARGET]
//   html       a web server without WebDAV: 200 and an HTML page to everything, PROPFIND too
//   outside    PROPFIND answers whose hrefs point outside the collection asked for (another
//              host, a parent, a sibling, an encoded '/', a bad escape...) beside good ones
//   truncated  207 with a multistatus cut off mid-element
//   longhref   207 whose one href is 100 KiB long
//   endless    207 whose multistatus never ends (blank space, forever)
//   status     answers the status named by the first path segment (/507/x: 507)
//   redirect   301 to /elsewhere/ (with a query that must not be printed)
//   reset      closes the connection without an answer
//   escape     301 whose Location and reason phrase hold terminal escapes (ESC, BEL, CSI,
//              U+202E), written raw: Node's own writer refuses control characters
//   proxy      forwards every request to TARGET (http://127.0.0.1:PORT), recording it
//   multistatus MOVE, COPY, DELETE and MKCOL answered 207 Multi-Status (see partial())
'use strict';

const fs = require('fs');
const http = require('http');

const [mode, logFile, target] = process.argv.slice(2);
if (!mode || !logFile) {
  process.stderr.write('usage: node webdav_stub.js MODE LOG [TARGET]\n');
  process.exit(2);
}
fs.writeFileSync(logFile, '');
const record = req =>
  fs.appendFileSync(logFile, JSON.stringify({ method: req.method, url: req.url, depth: req.headers.depth || '' }) + '\n');

const response = (href, body) => `<D:response><D:href>${href}</D:href>${body}</D:response>`;
const file = (href, size) => response(href,
  '<D:propstat><D:prop><D:resourcetype/><D:getcontentlength>' + size + '</D:getcontentlength>' +
  '<D:getlastmodified>Mon, 30 Nov 2026 06:41:12 GMT</D:getlastmodified><D:getetag>"e1"</D:getetag></D:prop>' +
  '<D:status>HTTP/1.1 200 OK</D:status></D:propstat>' +
  // A property the server does not have: its propstat is not 200 and must be ignored.
  '<D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop>' +
  '<D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>');
const dir = href => response(href,
  '<D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop>' +
  '<D:status>HTTP/1.1 200 OK</D:status></D:propstat>');
const multistatus = body => '<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:">' + body +
  '</D:multistatus>\n';

// /dir/ holds good.txt (7 bytes), "a b.txt" (as a full URL on this server) and sub/; every
// other href of the answer is outside /dir/ or unreadable.
function outside(req, res, port) {
  const path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname).replace(/\/$/, '');
  let body;
  if (path === '/dir') {
    body = dir('/dir/') + file('/dir/good.txt', 7) + file(`http://127.0.0.1:${port}/dir/a%20b.txt`, 3) +
      dir('/dir/sub/') +
      file('http://elsewhere.example/dir/stolen.txt', 1) + // another server
      file(`http://127.0.0.1:${port + 1}/dir/other-port.txt`, 1) + // another port
      file('/etc/passwd', 1) + file('/dir/../../etc/shadow', 1) + // above the collection
      file('/other/sibling.txt', 1) + file('/dir/sub/grandchild.txt', 1) + // not a direct child
      file('/dir/a%2Fb.txt', 1) + file('/dir/%zz.txt', 1) + file('/dir/..', 1) + file('/dir/%00nul', 1) +
      // No paths of normal form: never made into "/dir/double", "/dir/dot" or "/dir/y".
      file('/dir//double', 1) + file('/dir/./dot', 1) + file('/dir/x/../y', 1) + dir('/dir/sub//');
  } else if (path === '/dir/good.txt') {
    body = file('/dir/good.txt', 7);
  } else { // a Depth 0 answer about something else than what was asked
    body = file('/somewhere/else.txt', 5);
  }
  res.writeHead(207, { 'Content-Type': 'application/xml; charset=utf-8' });
  res.end(multistatus(body));
}

// A server that does part of a request on many resources and says so in a 207: /src is a
// collection holding f.txt, whose MOVE or COPY failed with 412 (the collection itself 424,
// listed first); /locked.txt's DELETE failed with 423; /esc names a member with an ESC
// byte; /silent a member with no status; /ok a MOVE or COPY whose every member succeeded;
// /broken an answer cut short. PROPFIND knows /src, /src/f.txt and the *.txt files.
function partial(req, res) {
  const path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname).replace(/\/$/, '');
  const failed = (href, line) => response(href, `<D:status>HTTP/1.1 ${line}</D:status>`);
  let body;
  if (req.method === 'PROPFIND') {
    if (path === '/src') body = dir('/src/') + (req.headers.depth === '1' ? file('/src/f.txt', 3) : '');
    else if (['/src/f.txt', '/locked.txt', '/ok', '/esc', '/silent', '/broken'].includes(path)) body = file(path, 3);
    else { res.writeHead(404); return res.end(); }
  } else if (path === '/ok') {
    body = failed('/ok', '201 Created') + failed('/dst-ok/', '201 Created');
  } else if (path === '/src') {
    body = failed('/src/', '424 Failed Dependency') + failed('/src/f.txt', '412 Precondition Failed');
  } else if (path === '/locked.txt') {
    body = failed(`http://127.0.0.1:${req.socket.localPort}/locked.txt`, '423 Locked') +
      '<D:responsedescription>locked by someone</D:responsedescription>';
  } else if (path === '/esc') {
    body = failed('/esc/%1b%5b31mred', '403 Forbidden');
  } else if (path === '/silent') {
    body = response('/silent', '');
  } else if (path === '/broken') {
    res.writeHead(207, { 'Content-Type': 'application/xml; charset=utf-8' });
    return res.end('<?xml version="1.0"?>\n<D:multistatus xmlns:D="DAV:"><D:response><D:href>/broken</D:href>');
  } else {
    res.writeHead(500); return res.end();
  }
  res.writeHead(207, { 'Content-Type': 'application/xml; charset=utf-8' });
  res.end(multistatus(body));
}

const proxy = (req, res) => require('../lib/stub_proxy.js')(target, req, res);

const server = http.createServer((req, res) => {
  record(req);
  if (mode === 'proxy') return proxy(req, res);
  req.resume();
  req.on('end', () => {
    const port = server.address().port;
    if (mode === 'html') {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      return res.end('<!DOCTYPE html>\n<html><head><title>Welcome</title></head><body><h1>It works!</h1></body></html>\n');
    }
    if (mode === 'outside') return outside(req, res, port);
    if (mode === 'multistatus') return partial(req, res);
    if (mode === 'longhref') {
      res.writeHead(207, { 'Content-Type': 'application/xml; charset=utf-8' });
      return res.end(multistatus(dir('/dir/') + file('/dir/' + 'x'.repeat(100 * 1024), 1)));
    }
    if (mode === 'endless') {
      res.writeHead(207, { 'Content-Type': 'application/xml; charset=utf-8' });
      res.write('<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:">');
      const blank = Buffer.alloc(1 << 20, 0x20);
      const more = () => { while (res.write(blank)); };
      res.on('drain', more);
      res.on('close', () => res.removeListener('drain', more));
      return more();
    }
    if (mode === 'truncated') {
      res.writeHead(207, { 'Content-Type': 'application/xml' });
      return res.end('<?xml version="1.0"?>\n<D:multistatus xmlns:D="DAV:"><D:response><D:href>/dir/</D:href>' +
                     '<D:propstat><D:prop><D:getcontentlen');
    }
    if (mode === 'status') {
      const code = parseInt(req.url.split('/')[1], 10) || 500;
      res.writeHead(code, { 'Content-Type': 'text/plain' });
      return res.end(`status ${code}\n`);
    }
    if (mode === 'redirect') {
      res.writeHead(301, { Location: `http://127.0.0.1:${port}/elsewhere/?token=SECRET-TOKEN` });
      return res.end();
    }
    if (mode === 'reset') return req.socket.destroy();
    if (mode === 'escape') {
      const hostile = '\x1b[2J\x1b]0;owned\x07\x9b31m\u202Etxt.exe';
      req.socket.end(Buffer.from(`HTTP/1.1 301 Moved ${hostile}\r\n` +
        `Location: http://127.0.0.1:${port}/x${hostile}/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`, 'utf8'));
      return;
    }
    res.writeHead(500);
    res.end();
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\n'));
