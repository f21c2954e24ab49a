// The gateway's HTTP API and WebSocket, and the verify API, for the pages.
// Errors come back as ApiError(status, code, message, details): the gateway's own JSON
// errors ({"error", "message"}, and "details" where the refusal carries facts the client
// says in the player's language: the card refused, the suit to follow, the cards
// allowed), or code "network" when nothing answered. An error's message is the
// developer's (the console, the logs); what the player reads is made from its code and
// details (ui.js errorText).

import { t } from "./i18n.js";

/** How a request says whose session it is (Authorization: Bearer <token>). */
const AUTH = Object.freeze({ type: "Bearer" });

export class ApiError extends Error {
  constructor(status, code, message, details = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

async function call(base, method, path, { body, token } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `${AUTH.type} ${token}`;
  let response;
  try {
    response = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, "network", `the server did not answer (${e.message})`);
  }
  let data;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const code = data?.error ?? `http_${response.status}`;
    if (response.status === 429) {
      const wait = Number(response.headers.get("Retry-After") ?? 1) || 1;
      throw new ApiError(response.status, code, `too many requests: wait ${wait} s`, { retry_after: wait });
    }
    const details = data?.details && typeof data.details === "object" ? data.details : null;
    throw new ApiError(response.status, code, data?.message ?? response.statusText, details);
  }
  return data;
}

/** The gateway, on this page's origin; ``token()`` gives the session's token or null. */
export class Gateway {
  constructor(token, base = "", onUnauthorized = () => {}) {
    this.token = token;
    this.base = base;
    this.onUnauthorized = onUnauthorized;
  }

  async request(method, path, body) {
    try {
      return await call(this.base, method, path, { body, token: this.token() });
    } catch (e) {
      // A session that has expired (or a key that changed): log in again.
      if (e.code === "unauthorized" && this.token()) this.onUnauthorized(e);
      throw e;
    }
  }

  config() {
    return this.request("GET", "/v1/config");
  }
  rulesets() {
    return this.request("GET", "/v1/rulesets");
  }
  signUp(name, password) {
    return this.request("POST", "/v1/accounts", { name, password });
  }
  logIn(name, password) {
    return this.request("POST", "/v1/sessions", { name, password });
  }
  /** Keep the language the player chose for their account ("ru", "bg", "en", "fr"). */
  setLanguage(language) {
    return this.request("PUT", "/v1/account/language", { language });
  }
  lobby() {
    return this.request("GET", "/v1/lobby");
  }
  createTable(options) {
    return this.request("POST", "/v1/tables", { ...options, command_id: commandId() });
  }
  table(id) {
    return this.request("GET", `/v1/tables/${encodeURIComponent(id)}`);
  }
  /** Take ``seat`` with the page's public ``key`` for it (seatkey.js; null: none). */
  join(id, seat, key = null) {
    const body = { command_id: commandId() };
    if (key) body.key = key;
    return this.request("POST", `/v1/tables/${encodeURIComponent(id)}/seats/${seat}`, body);
  }
  /** seed, bid, play, announce, swap, redeal, leave: the body gets a fresh command id. */
  move(id, verb, body = {}) {
    return this.request("POST", `/v1/tables/${encodeURIComponent(id)}/${verb}`, { ...body, command_id: commandId() });
  }
}

const decoder = new TextDecoder();

export function commandId() {
  const b = new Uint8Array(12);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** The verify API (another origin: it answers with CORS). */
export class VerifyApi {
  constructor(base) {
    this.base = base.replace(/\/$/, "");
  }
  matches(query = "") {
    return call(this.base, "GET", `/v1/matches${query}`);
  }
  match(id) {
    return call(this.base, "GET", `/v1/matches/${encodeURIComponent(id)}`);
  }
  record(id) {
    return call(this.base, "GET", `/v1/matches/${encodeURIComponent(id)}/record`);
  }
  verification(id) {
    return call(this.base, "GET", `/v1/matches/${encodeURIComponent(id)}/verification`);
  }
  /** The match analysed double-dummy (docs/analysis.md). */
  analysis(id) {
    return call(this.base, "GET", `/v1/matches/${encodeURIComponent(id)}/analysis`);
  }
  /** The fair-play evidence over each player's last ``window`` deals, with the
   * operators' token (docs/fair-play.md). */
  fairplayPlayers(window, token) {
    return call(this.base, "GET", `/v1/fairplay/players?window=${window}`, { token });
  }
  /** One player's fair-play evidence and the decisions it rests on. */
  fairplayPlayer(id, window, token) {
    return call(this.base, "GET", `/v1/fairplay/players/${encodeURIComponent(id)}?window=${window}`, { token });
  }
}

/**
 * The player's WebSocket: watches one table, hands every message to ``onMessage``,
 * reconnects (with back-off) when the connection drops and watches again; the gateway
 * then replays the table's events from the log, which the keeper takes in its stride.
 * ``onStatus(text)`` hears, in the player's language, that it is live, reconnecting
 * (in how many seconds) or replaced by another tab.
 */
export class Live {
  constructor(token, tableId, onMessage, onStatus = () => {}) {
    this.token = token;
    this.tableId = tableId;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.closed = false;
    this.backoff = 500;
    this.open();
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/v1/ws?token=${encodeURIComponent(this.token)}`);
    this.ws = ws;
    // The gateway sends binary frames of JSON: decode them in order, synchronously.
    ws.binaryType = "arraybuffer";
    ws.onopen = () => {
      ws.send(JSON.stringify({ op: "watch", table: this.tableId }));
      this.onStatus(t("api.live"), "live");
    };
    ws.onmessage = (e) => {
      // Reset once the gateway talks, not at the upgrade: a full gateway accepts the
      // upgrade and closes at once (1013), and the retries must still back off.
      this.backoff = 500;
      const text = typeof e.data === "string" ? e.data : decoder.decode(e.data);
      try {
        this.onMessage(JSON.parse(text));
      } catch (err) {
        console.error("message handling failed", err);
      }
    };
    ws.onclose = (e) => {
      if (this.closed) return;
      if (e.code === 4000) {
        this.onStatus(t("api.replaced"));
        return;
      }
      const seconds = Math.round(this.backoff / 1000);
      this.onStatus(e.code === 1013 ? t("api.busy_reconnecting", { seconds }) : t("api.reconnecting", { seconds }));
      setTimeout(() => !this.closed && this.open(), this.backoff);
      this.backoff = Math.min(this.backoff * 2, 10_000);
    };
  }

  close() {
    this.closed = true;
    this.ws?.close();
  }
}
