import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SAMPLES_DIR } from '../../src/sandbox/samples.js';

/**
 * "Somebody else's host" for media tests: a plain HTTP server on 127.0.0.1 with its own port, so
 * nothing ever leaves the machine. It records every request (a TLS handshake sent to it is not a
 * request and is not recorded). Routes:
 *   /ok.png, /ok.jpg      real images (the sandbox samples)
 *   /big.png              image/png, 6 MB (over the page limit)
 *   /big-chunked.png      image/png, 6 MB without Content-Length
 *   /logo.svg             image/svg+xml
 *   /page.html            text/html
 *   /liar.png             says image/png, is SVG
 *   /to-ok                302 → /ok.png
 *   /clip.mp4             video/mp4
 *   /hang                 never answers
 */
export interface ForeignHost {
  /** http://127.0.0.1:<port> */
  origin: string;
  host: string;
  requests: { path: string; userAgent: string }[];
  close(): Promise<void>;
}

export const PNG = fs.readFileSync(path.join(SAMPLES_DIR, 'coffee.png'));
const JPG = fs.readFileSync(path.join(SAMPLES_DIR, 'landscape.jpg'));
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>';

export async function startForeignHost(): Promise<ForeignHost> {
  const requests: ForeignHost['requests'] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push({ path: p, userAgent: String(req.headers['user-agent'] ?? '') });
    const send = (type: string, body: Buffer | string, extra: Record<string, string> = {}) => {
      res.writeHead(200, { 'content-type': type, ...extra });
      res.end(body);
    };
    switch (p) {
      case '/ok.png':
        return send('image/png', PNG);
      case '/ok.jpg':
        return send('image/jpeg', JPG);
      case '/big.png':
        return send('image/png', Buffer.concat([PNG, Buffer.alloc(6 * 1024 * 1024)]));
      case '/big-chunked.png': {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.write(PNG);
        for (let i = 0; i < 6; i++) res.write(Buffer.alloc(1024 * 1024));
        return res.end();
      }
      case '/logo.svg':
        return send('image/svg+xml', SVG);
      case '/page.html':
        return send('text/html', '<!doctype html><title>x</title>');
      case '/liar.png':
        return send('image/png', SVG);
      case '/clip.mp4':
        return send('video/mp4', Buffer.alloc(1024));
      case '/to-ok':
        res.writeHead(302, { location: '/ok.png' });
        return res.end();
      case '/hang':
        hanging.add(res);
        return;
      default:
        res.writeHead(404).end();
    }
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    async close() {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
