import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * Debian's nginx run as an ordinary child process for tests: its own prefix, pid, logs and temp
 * directories in a temporary directory, in the foreground, on loopback ports; the http-level
 * configuration under test is included as it would be from /etc/nginx/conf.d.
 */
export const NGINX_BIN = process.env.NGINX_BIN ?? '/usr/sbin/nginx';

export interface RunningNginx {
  dir: string;
  proc: ChildProcess;
  errorLog(): string;
  stop(): Promise<void>;
}

/**
 * `count` distinct loopback ports for nginx to listen on, from below the kernel's ephemeral range
 * (net.ipv4.ip_local_port_range). A port the kernel picked (listen on 0, then close) could be handed out again before
 * nginx binds it — to a server started meanwhile, or as the local port of any outgoing connection (the suite opens
 * hundreds to PostgreSQL) — and nginx then fails with "Address already in use". Below the range the kernel hands out
 * nothing by itself, so a port stays free until nginx takes it. Each is tried at random and checked free first
 * (another test file or program may hold it).
 */
export async function freePorts(count: number): Promise<number[]> {
  const low = ephemeralLow();
  const floor = Math.min(20_000, low - 1_000);
  const ports = new Set<number>();
  for (let attempt = 0; attempt < 200 && ports.size < count; attempt++) {
    const port = floor + Math.floor(Math.random() * (low - floor));
    if (!ports.has(port) && (await canListen(port))) ports.add(port);
  }
  if (ports.size < count) throw new Error(`no ${count} free ports below ${low} for nginx`);
  return [...ports];
}

/** The first port of the kernel's ephemeral range (32768 where it cannot be read). */
function ephemeralLow(): number {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A self-signed certificate for 127.0.0.1 (openssl), for nginx to terminate TLS with in tests. */
export function selfSignedCertificate(dir: string): { cert: string; key: string; pem: string } {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'pipe' });
  return { cert, key, pem: fs.readFileSync(cert, 'utf8') };
}

/** Replaces `pattern` in `text`, insisting it is there: a sample that drifted from what the test expects fails loudly. */
export function replaceOnce(text: string, pattern: RegExp | string, replacement: string): string {
  const found = typeof pattern === 'string' ? text.split(pattern).length - 1 : (text.match(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`)) ?? []).length;
  if (found !== 1) throw new Error(`expected exactly one ${String(pattern)} in the nginx configuration, found ${found}`);
  return text.replace(pattern, replacement);
}

/** Starts nginx with `httpConf` (an http-level snippet), checks it with `nginx -t` first, and waits until `readyPort` accepts connections. */
export async function startNginx(httpConf: string, readyPort: number, timeoutMs = 10_000): Promise<RunningNginx> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcs-nginx-'));
  // Run as root (CI), nginx's workers switch to an unprivileged user: they must be able to enter the prefix.
  fs.chmodSync(dir, 0o755);
  fs.writeFileSync(path.join(dir, 'rcs.conf'), httpConf);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${path.join(dir, `${t}_temp`)};`).join('\n');
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    `daemon off;
worker_processes 1;
pid ${path.join(dir, 'nginx.pid')};
error_log ${path.join(dir, 'error.log')} notice;
events { worker_connections 256; }
http {
  access_log ${path.join(dir, 'access.log')};
${temp}
  include ${path.join(dir, 'rcs.conf')};
}
`,
  );
  const args = ['-p', dir, '-c', path.join(dir, 'nginx.conf')];
  try {
    execFileSync(NGINX_BIN, [...args, '-t'], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(`nginx -t refused the configuration:\n${String((err as { stderr?: Buffer }).stderr ?? err)}\n${httpConf}`);
  }
  const proc = spawn(NGINX_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  const errorLog = () => {
    try {
      return fs.readFileSync(path.join(dir, 'error.log'), 'utf8');
    } catch {
      return '';
    }
  };
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`nginx exited (${proc.exitCode}):\n${out}\n${errorLog()}`);
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(readyPort, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (open) break;
    if (Date.now() > end) {
      proc.kill('SIGKILL');
      throw new Error(`nginx did not listen on ${readyPort} in time:\n${out}\n${errorLog()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    dir,
    proc,
    errorLog,
    async stop() {
      // SIGQUIT: nginx's graceful stop (finishes open requests, then exits).
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGQUIT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
