// A hostile FTP server on 127.0.0.1 for what no real server sends: listings whose names are
// paths (../../etc/passwd, a/b, /etc/shadow, "..", "."). Prints its control port
// (kernel-picked) as its first stdout line; appends every command it gets to LOG, one JSON
// string per line (a PASS argument is written as "PASS ***").
//
// Usage: node ftp_stub.js LOG [list]   (list: FEAT offers no MLST/MLSD, listings are LIST's)
//
// The tree it serves (any user, any password), in MLSD form and for LIST too:
//   /dir/good.txt      "goodbye" (7 bytes)
//   /dir/sub/ok.txt    "ok!" (3 bytes)
// and beside them in /dir's listing: ../../etc/passwd, a/b, /etc/shadow, "..", ".", "sub/..";
// in /dir/sub's: ../escape.txt. DELE, RMD, RNFR/RNTO succeed on the real names only (and
// forget them); everything else a removal could name is refused with 550.
'use strict';

const fs = require('fs');
const net = require('net');

const [logFile, mode] = process.argv.slice(2);
const mlsx = mode !== 'list';
if (!logFile) {
  process.stderr.write('usage: node ftp_stub.js LOG\n');
  process.exit(2);
}
fs.writeFileSync(logFile, '');
const record = line => fs.appendFileSync(logFile, JSON.stringify(line.startsWith('PASS ') ? 'PASS ***' : line) + '\n');

const files = new Map([['/dir/good.txt', 'goodbye'], ['/dir/sub/ok.txt', 'ok!']]);
const dirs = new Set(['/', '/dir', '/dir/sub']);
const hostile = {
  '/dir': ['../../etc/passwd', 'a/b', '/etc/shadow', '..', '.', 'sub/..'],
  '/dir/sub': ['../escape.txt'],
};
const modify = '20261130064112';

const normal = arg => {
  let p = (arg || '/').trim();
  if (!p.startsWith('/')) p = '/' + p;
  p = p.replace(/\/+$/, '');
  return p === '' ? '/' : p;
};
const childrenOf = dir => {
  const out = [];
  for (const f of files.keys()) if (f.slice(0, f.lastIndexOf('/')) === dir) out.push({ name: f.slice(dir.length + 1), size: files.get(f).length, dir: false });
  for (const d of dirs) if (d !== '/' && d.slice(0, d.lastIndexOf('/') || 1) === dir) out.push({ name: d.slice(d.lastIndexOf('/') + 1), size: 0, dir: true });
  return out;
};
const fact = e => `type=${e.dir ? 'dir' : 'file'};size=${e.size};modify=${modify};perm=r; ${e.name}`;
const listing = (dir, mlsd) => {
  const entries = childrenOf(dir);
  for (const name of hostile[dir] || []) entries.push({ name, size: 1, dir: false });
  if (mlsd)
    return [`type=cdir;modify=${modify}; .`, `type=pdir;modify=${modify}; ..`, ...entries.map(fact)].join('\r\n') + '\r\n';
  return entries.map(e => `${e.dir ? 'd' : '-'}rw-r--r--    1 ftp      ftp      ${String(e.size).padStart(8)} Nov 30 06:41 ${e.name}`).join('\r\n') + '\r\n';
};

const server = net.createServer(control => {
  control.setEncoding('latin1');
  const say = text => control.write(text + '\r\n');
  let passive = null; // a server waiting for the data connection
  let dataSocket = null;
  let renameFrom = null;
  let rest = 0;
  const withData = send => {
    if (!passive) return say('425 Use EPSV or PASV first');
    const p = passive;
    passive = null;
    say('150 Opening data connection');
    const go = socket => {
      send(socket);
      p.close();
    };
    if (dataSocket) { const s = dataSocket; dataSocket = null; go(s); } else p.once('connection', go);
  };
  const openPassive = () => {
    if (passive) passive.close();
    dataSocket = null;
    passive = net.createServer();
    passive.on('connection', s => { if (!dataSocket) dataSocket = s; });
    return new Promise(resolve => passive.listen(0, '127.0.0.1', () => resolve(passive.address().port)));
  };
  say('220 hostile stub');
  let buffer = '';
  let cwd = '/'; // where CWD went: PWD names it, as a server that resolves folders does
  control.on('data', async chunk => {
    buffer += chunk;
    let eol;
    while ((eol = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, eol);
      buffer = buffer.slice(eol + 2);
      record(line);
      const space = line.indexOf(' ');
      const verb = (space < 0 ? line : line.slice(0, space)).toUpperCase();
      const arg = space < 0 ? '' : line.slice(space + 1);
      const path = normal(arg);
      switch (verb) {
        case 'USER': say('331 Password please'); break;
        case 'PASS': say('230 Logged in'); break;
        case 'FEAT':
          say('211-Features:\r\n' + (mlsx ? ' MLST type*;size*;modify*;perm*;\r\n MLSD\r\n' : '') + ' SIZE\r\n REST STREAM\r\n211 End');
          break;
        case 'PWD': say(`257 "${cwd}" is the current folder`); break;
        case 'TYPE': say('200 Type set'); break;
        case 'CWD': if (dirs.has(path)) { cwd = path; say('250 OK'); } else say('550 No such folder'); break;
        case 'NOOP': say('200 OK'); break;
        case 'EPSV': { const port = await openPassive(); say(`229 Entering Extended Passive Mode (|||${port}|)`); break; }
        case 'PASV': { const port = await openPassive(); say(`227 Entering Passive Mode (127,0,0,1,${port >> 8},${port & 255})`); break; }
        case 'REST': rest = Number(arg) || 0; say('350 Restarting'); break;
        case 'SIZE': files.has(path) ? say(`213 ${files.get(path).length}`) : say('550 No such file'); break;
        case 'MDTM': files.has(path) ? say(`213 ${modify}`) : say('550 No such file'); break;
        case 'MLST':
          if (!mlsx) say('502 Not implemented');
          else if (files.has(path)) say(`250-Listing\r\n type=file;size=${files.get(path).length};modify=${modify};perm=r; ${path}\r\n250 End`);
          else if (dirs.has(path)) say(`250-Listing\r\n type=dir;modify=${modify};perm=r; ${path}\r\n250 End`);
          else say('550 No such file');
          break;
        case 'MLSD':
          if (!mlsx) { say('502 Not implemented'); break; }
        // falls through
        case 'LIST':
        case 'NLST':
          if (!dirs.has(path)) { say('550 No such folder'); break; }
          withData(s => s.end(listing(path, verb === 'MLSD'), 'latin1', () => say('226 Done')));
          break;
        case 'RETR':
          if (!files.has(path)) { say('550 No such file'); break; }
          { const from = rest; rest = 0; withData(s => s.end(files.get(path).slice(from), 'latin1', () => say('226 Done'))); }
          break;
        case 'DELE':
          if (files.has(path)) { files.delete(path); say('250 Deleted'); } else say('550 No such file');
          break;
        case 'RMD':
          if (dirs.has(path) && path !== '/' && childrenOf(path).length === 0) { dirs.delete(path); delete hostile[path]; say('250 Removed'); } else say('550 Cannot remove');
          break;
        case 'RNFR': renameFrom = path; files.has(path) || dirs.has(path) ? say('350 Ready') : say('550 No such file'); break;
        case 'RNTO': say('550 Renaming is refused here'); renameFrom = null; break;
        case 'MKD': case 'STOR': case 'APPE': case 'SITE': case 'MFMT': say('550 Read-only stub'); break;
        case 'ABOR': say('226 Aborted'); break;
        case 'QUIT': say('221 Bye'); control.end(); break;
        default: say('502 Not implemented');
      }
    }
  });
  control.on('error', () => {});
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\n'));
