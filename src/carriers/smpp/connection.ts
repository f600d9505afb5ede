import type { Logger } from '../../platform/logger.js';
import { Backoff } from './backoff.js';
import { connectSmpp, SMPP_STATUS, smppStatusName, type Pdu, type PduOptions, type SmppSession } from './smpp-lib.js';

/** Where and as whom to bind, from `smpp://system_id:password@host:port` (`ssmpp://` = TLS). */
export interface SmppEndpoint {
  host: string;
  port: number;
  tls: boolean;
  systemId: string;
  password: string;
  /** `system_id@host:port`: names the bind in logs and in the smpp_parts table (no password). */
  key: string;
}

export function parseSmppUrl(url: string): SmppEndpoint {
  const u = new URL(url);
  const tls = u.protocol === 'ssmpp:';
  const port = Number(u.port || (tls ? 3550 : 2775));
  const systemId = decodeURIComponent(u.username);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return { host, port, tls, systemId, password: decodeURIComponent(u.password), key: `${systemId}@${u.hostname}:${port}` };
}

/**
 * SMPP 3.4 bind types: a transceiver both submits and receives; a transmitter only submits, a
 * receiver only gets deliver_sm (receipts, incoming messages). SMSCs that offer no transceiver
 * take a transmitter and a receiver bind side by side (SMPP_BIND_MODE=transmitter_receiver).
 */
export type SmppBindType = 'transceiver' | 'transmitter' | 'receiver';

export interface SmppConnectionOptions {
  bindType?: SmppBindType;
  /** Most submit_sm without their response at once. */
  window: number;
  enquireLinkMs: number;
  systemType: string;
  /** First reconnect delay; doubles per failed attempt up to reconnectMaxMs (with jitter). */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /** How long a request (bind, submit) may wait for its response. */
  responseTimeoutMs?: number;
  /** An enquire_link unanswered for this long means the link is dead: closed and bound again. Default: responseTimeoutMs. */
  enquireLinkTimeoutMs?: number;
  /** Uniform [0, 1) for the reconnect jitter (tests inject a fixed one). */
  random?: () => number;
}

/** The bind went away while a submit waited for its response: it may or may not have arrived. */
export class ConnectionLostError extends Error {
  constructor(
    message: string,
    readonly code: 'SMPP_CONNECTION_LOST' | 'SMPP_NOT_BOUND' | 'SMPP_STOPPED',
  ) {
    super(message);
    this.name = 'ConnectionLostError';
  }
}

export interface SubmitResponse {
  status: number;
  messageId: string | null;
}

export type SubmitDone = (err: Error | null, res: SubmitResponse | null) => void;

interface Outstanding {
  at: number;
  session: SmppSession;
  settled: boolean;
  done: SubmitDone;
}

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * One managed bind (transceiver, transmitter or receiver): connects, binds, supervises the link
 * with enquire_link (unanswered in time → closed and bound again), reconnects with exponential
 * backoff and jitter when the link drops, and limits outstanding submit_sm to a window that
 * halves when the SMSC throttles and grows back by one per success. Incoming deliver_sm (receipts
 * and mobile-originated messages) go to `onDeliver`, whose result is the deliver_sm_resp status
 * (non-zero asks the SMSC to deliver again later). A submit while there is no bind fails at once
 * (SMPP_NOT_BOUND): callers queue rather than wait on the SMSC.
 */
export class SmppConnection {
  private session: SmppSession | null = null;
  private generation = 0;
  private bound = false;
  private stopped = true;
  private readonly backoff: Backoff;
  readonly bindType: SmppBindType;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private enquireTimer: NodeJS.Timeout | null = null;
  private pauseTimer: NodeJS.Timeout | null = null;
  private inflight = 0;
  private corked: SmppSession | null = null;
  private effectiveWindow: number;
  private pausedUntil = 0;
  private throttleDelay = THROTTLE_MIN_MS;
  private readonly waiters: Waiter[] = [];
  private readonly outstanding = new Set<Outstanding>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private readonly boundWaiters = new Set<() => void>();
  /** Test hook: each scheduled reconnect's delay. */
  onReconnectScheduled?: (delayMs: number) => void;

  constructor(
    readonly endpoint: SmppEndpoint,
    private readonly options: SmppConnectionOptions,
    private readonly logger: Logger,
    private readonly onDeliver: (pdu: Pdu) => Promise<number>,
  ) {
    this.effectiveWindow = options.window;
    this.bindType = options.bindType ?? 'transceiver';
    this.backoff = new Backoff({ minMs: options.reconnectMinMs ?? 250, maxMs: options.reconnectMaxMs ?? 30_000, jitter: 0.2, ...(options.random ? { random: options.random } : {}) });
  }

  get key(): string {
    return this.endpoint.key;
  }

  get isBound(): boolean {
    return this.bound;
  }

  /** Bound, and a bind that may submit (not a receiver). */
  get canSubmit(): boolean {
    return this.bound && this.bindType !== 'receiver';
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.sweepTimer = setInterval(() => this.sweep(), Math.max(10, Math.min(1000, Math.floor(this.responseTimeoutMs / 4))));
    this.sweepTimer.unref?.();
    this.connect();
  }

  /** Unbinds politely (at most a second), closes, and fails whatever still waits. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.pauseTimer) clearTimeout(this.pauseTimer);
    this.stopEnquire();
    const s = this.session;
    this.generation++;
    this.bound = false;
    this.session = null;
    this.failAll(new ConnectionLostError('SMPP connection stopped', 'SMPP_STOPPED'));
    if (s) {
      await new Promise<void>((resolve) => {
        const guard = setTimeout(() => {
          s.destroy();
          resolve();
        }, 1500);
        const finish = () => {
          clearTimeout(guard);
          resolve();
        };
        const ok = s.unbind(() => s.close(finish));
        if (!ok) s.destroy(finish);
      });
    }
  }

  /** Resolves once bound (at once when bound), rejects at the deadline. */
  waitBound(deadline: number): Promise<void> {
    if (this.bound) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.boundWaiters.delete(onBound);
        reject(new ConnectionLostError(`not bound to ${this.key}`, 'SMPP_NOT_BOUND'));
      }, Math.max(0, deadline - Date.now()));
      const onBound = () => {
        clearTimeout(timer);
        resolve();
      };
      this.boundWaiters.add(onBound);
    });
  }

  /**
   * One submit_sm: waits for the bind and a window slot (until `deadline`), then for the response.
   * Rejects with ConnectionLostError when the link is not there in time or drops before the answer.
   */
  submit(options: PduOptions, deadline: number): Promise<SubmitResponse> {
    return new Promise<SubmitResponse>((resolve, reject) => this.submitWith(options, deadline, (err, res) => (err ? reject(err) : resolve(res!))));
  }

  /**
   * submit() without a promise per submit (the carrier's hot path, bench/smpp.ts): `done` is called
   * exactly once — from the response callback, the sweep, the loss of the link, or asynchronously
   * when there is no bind or no window slot in time; never before this returns.
   */
  submitWith(options: PduOptions, deadline: number, done: SubmitDone): void {
    if (this.waiters.length > 0 || !this.canSend()) {
      this.acquire(deadline).then(
        () => this.issue(options, done),
        (err: Error) => done(err, null),
      );
      return;
    }
    this.inflight++;
    this.issue(options, done);
  }

  /** Sends on the current session, holding the window slot already taken. */
  private issue(options: PduOptions, done: SubmitDone): void {
    const session = this.session;
    if (!session || !this.bound) {
      this.release();
      const err = new ConnectionLostError(`not bound to ${this.key}`, 'SMPP_NOT_BOUND');
      queueMicrotask(() => done(err, null));
      return;
    }
    // One entry per outstanding submit; the response timeout is checked by one sweep timer
    // (startSweep) rather than a timer per submit.
    const entry: Outstanding = { at: Date.now(), session, settled: false, done };
    this.outstanding.add(entry);
    this.cork(session);
    const sent = session.submit_sm(options, (pdu) => {
      if (entry.settled) return;
      entry.settled = true;
      this.outstanding.delete(entry);
      this.release();
      done(null, { status: pdu.command_status, messageId: pdu.message_id ? String(pdu.message_id) : null });
    });
    if (!sent) {
      this.fail(entry, new ConnectionLostError(`connection to ${this.key} is not writable`, 'SMPP_CONNECTION_LOST'));
      // The socket is gone even if its close event has not been seen yet: no more submits on it.
      this.recycle(session, 'socket not writable');
    }
  }

  /** An outstanding submit ends without its response; `done` hears of it asynchronously (no re-entry into the caller). */
  private fail(entry: Outstanding, err: Error): void {
    if (entry.settled) return;
    entry.settled = true;
    this.outstanding.delete(entry);
    this.release();
    queueMicrotask(() => entry.done(err, null));
  }

  /** Outstanding submits older than the response timeout: the link stopped answering, start over. */
  private sweep(): void {
    const limit = Date.now() - this.responseTimeoutMs;
    for (const entry of this.outstanding) {
      if (entry.at > limit) break; // insertion order: the rest are younger
      this.fail(entry, new ConnectionLostError(`no submit_sm_resp from ${this.key} in time`, 'SMPP_CONNECTION_LOST'));
      this.recycle(entry.session, 'submit_sm_resp timeout');
    }
  }

  /** The SMSC said ESME_RTHROTTLED / ESME_RMSGQFUL: halve the window and pause new submits. */
  noteThrottle(): void {
    this.effectiveWindow = Math.max(1, Math.floor(this.effectiveWindow / 2));
    this.pausedUntil = Date.now() + this.throttleDelay;
    this.throttleDelay = Math.min(THROTTLE_MAX_MS, this.throttleDelay * 2);
  }

  /** A submit went through: widen the window again, one step at a time. */
  noteSuccess(): void {
    if (this.effectiveWindow < this.options.window) this.effectiveWindow++;
    this.throttleDelay = Math.max(THROTTLE_MIN_MS, Math.floor(this.throttleDelay / 2));
    this.pump();
  }

  /**
   * Submits issued in the same tick (several responses of one socket read free several window
   * slots) leave in one write instead of one syscall each.
   */
  private cork(session: SmppSession): void {
    if (this.corked === session) return;
    this.corked = session;
    session.socket.cork();
    process.nextTick(() => {
      this.corked = null;
      session.socket.uncork();
    });
  }

  private get responseTimeoutMs(): number {
    return this.options.responseTimeoutMs ?? 10_000;
  }

  private acquire(deadline: number): Promise<void> {
    if (this.stopped) return Promise.reject(new ConnectionLostError('SMPP connection stopped', 'SMPP_STOPPED'));
    // No bind: nothing to wait for here (a reconnect may take minutes); the caller keeps the message queued.
    if (!this.canSubmit) return Promise.reject(new ConnectionLostError(`not bound to ${this.key}`, 'SMPP_NOT_BOUND'));
    if (this.waiters.length === 0 && this.canSend()) {
      this.inflight++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(new ConnectionLostError(this.bound ? `no free window slot on ${this.key} in time` : `not bound to ${this.key}`, 'SMPP_NOT_BOUND'));
        }, Math.max(0, deadline - Date.now())),
      };
      this.waiters.push(waiter);
      this.pump();
    });
  }

  private release(): void {
    this.inflight = Math.max(0, this.inflight - 1);
    this.pump();
  }

  private canSend(): boolean {
    return this.bound && this.bindType !== 'receiver' && this.inflight < this.effectiveWindow && Date.now() >= this.pausedUntil;
  }

  private pump(): void {
    if (this.waiters.length === 0) return; // the common case: nothing waits, no clock read
    while (this.waiters.length > 0 && this.canSend()) {
      const w = this.waiters.shift()!;
      clearTimeout(w.timer);
      this.inflight++;
      w.resolve();
    }
    const wait = this.pausedUntil - Date.now();
    if (this.waiters.length > 0 && this.bound && wait > 0 && !this.pauseTimer) {
      this.pauseTimer = setTimeout(() => {
        this.pauseTimer = null;
        this.pump();
      }, wait);
    }
  }

  private connect(): void {
    if (this.stopped) return;
    const gen = ++this.generation;
    const { host, port, tls } = this.endpoint;
    const s = connectSmpp({ host, port, tls });
    this.session = s;
    const bindTimer = setTimeout(() => {
      if (gen === this.generation && !this.bound) this.recycle(s, 'bind timeout');
    }, this.responseTimeoutMs);
    s.on('connect', () => {
      if (gen !== this.generation) return;
      const bind = { system_id: this.endpoint.systemId, password: this.endpoint.password, system_type: this.options.systemType, interface_version: 0x34 };
      const send = this.bindType === 'transmitter' ? s.bind_transmitter.bind(s) : this.bindType === 'receiver' ? s.bind_receiver.bind(s) : s.bind_transceiver.bind(s);
      send(
        bind,
        (pdu) => {
          clearTimeout(bindTimer);
          if (gen !== this.generation) return;
          if (pdu.command_status !== SMPP_STATUS.ESME_ROK) {
            this.logger.error({ smsc: this.key, bind: this.bindType, status: smppStatusName(pdu.command_status) }, 'SMPP bind refused');
            s.destroy();
            return;
          }
          this.bound = true;
          this.backoff.reset();
          this.effectiveWindow = this.options.window;
          this.logger.info({ smsc: this.key, bind: this.bindType }, 'SMPP bound');
          this.startEnquire(s, gen);
          for (const w of [...this.boundWaiters]) {
            this.boundWaiters.delete(w);
            w();
          }
          this.pump();
        },
      );
    });
    s.on('deliver_sm', (pdu: Pdu) => {
      void this.onDeliver(pdu)
        .catch((err: unknown) => {
          this.logger.error({ err, smsc: this.key }, 'SMPP deliver_sm handling failed');
          return SMPP_STATUS.ESME_RX_T_APPN;
        })
        .then((status) => {
          s.send(pdu.response({ command_status: status }));
        });
    });
    s.on('enquire_link', (pdu: Pdu) => {
      s.send(pdu.response());
    });
    s.on('unbind', (pdu: Pdu) => {
      s.send(pdu.response());
      s.close();
    });
    s.on('error', (err: unknown) => {
      if (gen === this.generation) this.logger.warn({ smsc: this.key, err: err instanceof Error ? err.message : String(err) }, 'SMPP connection error');
    });
    s.on('close', () => {
      clearTimeout(bindTimer);
      if (gen !== this.generation) return;
      this.onClosed();
    });
  }

  private onClosed(): void {
    const wasBound = this.bound;
    this.bound = false;
    this.session = null;
    this.stopEnquire();
    this.failAll(new ConnectionLostError(`connection to ${this.key} lost`, 'SMPP_CONNECTION_LOST'));
    if (this.stopped) return;
    const delay = this.backoff.next();
    if (wasBound) this.logger.warn({ smsc: this.key, bind: this.bindType, retryInMs: delay }, 'SMPP connection lost; reconnecting');
    else this.logger.debug({ smsc: this.key, bind: this.bindType, retryInMs: delay, attempt: this.backoff.attempts }, 'SMPP connect failed; retrying');
    this.onReconnectScheduled?.(delay);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, delay);
    this.reconnectTimer.unref?.();
  }

  /**
   * Outstanding submits fail (they may or may not have arrived); waiters for a slot fail too (they
   * sent nothing): the caller decides whether to wait for the next bind or keep the message queued.
   */
  private failAll(err: ConnectionLostError): void {
    for (const entry of [...this.outstanding]) this.fail(entry, err);
    this.outstanding.clear();
    this.inflight = 0;
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(err);
    }
  }

  private recycle(s: SmppSession, why: string): void {
    if (this.session !== s) return;
    if (this.bound) this.logger.warn({ smsc: this.key, bind: this.bindType, why }, 'SMPP connection reset');
    // Unbound from now on: no new submit goes onto this socket.
    this.bound = false;
    s.destroy();
  }

  /**
   * enquire_link every enquireLinkMs; one unanswered for enquireLinkTimeoutMs means the link is
   * dead even if TCP has not noticed (a hung SMSC, a NAT that dropped the flow): close, bind again.
   */
  private startEnquire(s: SmppSession, gen: number): void {
    this.stopEnquire();
    const timeout = this.options.enquireLinkTimeoutMs ?? this.responseTimeoutMs;
    this.enquireTimer = setInterval(() => {
      if (gen !== this.generation || !this.bound) return;
      const timer = setTimeout(() => this.recycle(s, 'enquire_link unanswered'), timeout);
      timer.unref?.();
      const ok = s.enquire_link(() => clearTimeout(timer));
      if (!ok) {
        clearTimeout(timer);
        this.recycle(s, 'socket not writable');
      }
    }, this.options.enquireLinkMs);
    this.enquireTimer.unref?.();
  }

  private stopEnquire(): void {
    if (this.enquireTimer) clearInterval(this.enquireTimer);
    this.enquireTimer = null;
  }
}

const THROTTLE_MIN_MS = 100;
const THROTTLE_MAX_MS = 5_000;
