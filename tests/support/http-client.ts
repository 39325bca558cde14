import type { Hono } from 'hono';
import { assertAnswerMatchesContract } from './contract.ts';
import { enrolTwoFactor, secondFactor, secretOf } from './two-factor.ts';

/** A cookie-keeping client for `app.request()`, speaking to the API as the SPA does. */
export class TestClient {
  readonly cookies = new Map<string, string>();
  readonly #app: Hono<never>;
  readonly ip: string;

  constructor(app: unknown, ip = '203.0.113.10') {
    this.#app = app as Hono<never>;
    this.ip = ip;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  #keep(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (!pair || eq < 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /max-age=0\b/i.test(a.trim()) || /expires=thu, 01 jan 1970/i.test(a.trim()));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(
    method: string,
    path: string,
    options: { json?: unknown; body?: BodyInit; headers?: Record<string, string>; csrf?: boolean } = {},
  ): Promise<Response> {
    const unsafe = !['GET', 'HEAD', 'OPTIONS'].includes(method);
    if (unsafe && options.csrf !== false && !this.cookies.has('XSRF-TOKEN')) await this.request('GET', '/api/csrf-token');
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip, ...options.headers };
    if (this.cookies.size) headers.cookie = this.cookieHeader();
    if (unsafe && options.csrf !== false) headers['x-xsrf-token'] = decodeURIComponent(this.cookies.get('XSRF-TOKEN') ?? '');
    let body = options.body;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const res = await this.#app.request(path, { method, headers, body });
    this.#keep(res);
    // Every answer is checked against the OpenAPI document: its status, content type and body.
    await assertAnswerMatchesContract(method, path, res);
    return res;
  }

  get = (path: string) => this.request('GET', path);
  post = (path: string, json?: unknown) => this.request('POST', path, { json });
  put = (path: string, json?: unknown) => this.request('PUT', path, { json });

  /**
   * Signs in as the SPA does. Administrators must use two-factor (docs/decisions/0027): an
   * administrator not enrolled yet is enrolled here (`enrolAdmins`, on by default), and the code step
   * of an enrolled account whose secret this test file knows is answered with a computed code.
   */
  async login(email: string, password: string, options: { enrolAdmins?: boolean } = {}): Promise<Response> {
    const res = await this.post('/api/login', { email, password });
    if (res.status !== 200) return res;
    const text = await res.text();
    const body = JSON.parse(text) as { two_factor_required?: boolean; users?: { role: string; two_factor_enabled: boolean }[] };
    const secret = secretOf(email);
    if (body.two_factor_required && secret) return this.post('/api/login/two-factor', await secondFactor(email));
    const me = body.users?.[0];
    if (me && me.role !== 'user' && !me.two_factor_enabled && options.enrolAdmins !== false) {
      await enrolTwoFactor(this, email, password);
      return this.get('/api/login');
    }
    return new Response(text, { status: res.status, headers: res.headers });
  }
}
