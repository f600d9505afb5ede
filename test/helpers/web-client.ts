import * as OTPAuth from 'otpauth';

/** A tiny cookie-keeping HTTP client for page flows (login forms) without a browser. */
export class WebClient {
  readonly cookies = new Map<string, string>();
  /** Sent with every request (e.g. X-Forwarded-For, to play another client address behind a trusted proxy). */
  readonly headers: Record<string, string> = {};

  constructor(readonly baseUrl: string) {}

  async request(method: string, path: string, form?: Record<string, string>, extraHeaders: Record<string, string> = {}): Promise<{ status: number; text: string; location: string | null; headers: Headers }> {
    const headers: Record<string, string> = { Accept: 'text/html', ...this.headers, ...extraHeaders };
    if (this.cookies.size) headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (form) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(form).toString();
    }
    const res = await fetch(new URL(path, this.baseUrl), { method, headers, redirect: 'manual', ...(body !== undefined ? { body } : {}) });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.status, text: await res.text(), location: res.headers.get('location'), headers: res.headers };
  }

  get(path: string) {
    return this.request('GET', path);
  }

  post(path: string, form: Record<string, string>) {
    return this.request('POST', path, form);
  }

  /** The value of a hidden input in the last page's HTML. */
  static hidden(html: string, name: string): string {
    const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
    if (!m) throw new Error(`hidden input ${name} not found`);
    return m[1]!.replace(/&amp;/g, '&');
  }

  /** Full login: password, then TOTP. Returns the final response. */
  async login(email: string, password: string, totpSecret: string, next = '/console', timestamp = Date.now()) {
    const page = await this.get(`/login?next=${encodeURIComponent(next)}`);
    const step1 = await this.post('/login', { csrf: WebClient.hidden(page.text, 'csrf'), next, email, password });
    if (step1.status !== 303) throw new Error(`password step failed: ${step1.status}`);
    const totpPage = await this.get(step1.location!);
    return this.post('/login/totp', { csrf: WebClient.hidden(totpPage.text, 'csrf'), next, code: totpCode(totpSecret, timestamp) });
  }
}

export function totpCode(secret: string, timestamp = Date.now()): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp });
}
