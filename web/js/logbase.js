// The tab's checks against the transparency log (logcheck.js), their ground: the checks'
// names and verdicts, and the log's API asked from the tab (the log's key first seen, its
// signed checkpoint, its witnesses, each answer verified before it is believed).

import { t } from "./i18n.js";
import { TranslogError, logVerifier, witnessVerifier } from "./translog.js";
import { openCheckpoint } from "./translognote.js";

export const pass = (name, detail) => ({ name, status: "pass", detail });
export const fail = (name, detail) => ({ name, status: "fail", detail });
export const unchecked = (name, detail) => ({ name, status: "unchecked", detail });

/** The checks' names: each one's identifier (the panel's data-check, what code and tests
 * compare them by), and its name in the player's language (logCheckName). */
const NAMES = Object.freeze({
  "log key": () => t("log.check.key"),
  "log consistency": () => t("log.check.consistency"),
  "log inclusion": () => t("log.check.inclusion"),
  "log entries": () => t("log.check.entries"),
  "log witnesses": () => t("log.check.witnesses"),
  "log witnesses added": () => t("log.check.witnesses_added"),
});
export const [KEY, CONSISTENCY, INCLUSION, ENTRIES, WITNESSES, ADDED] = Object.keys(NAMES);
export const LOG_CHECKS = Object.freeze([KEY, CONSISTENCY, INCLUSION, ENTRIES, WITNESSES]);
/** Said (info) when the platform names witnesses this tab did not pin: they do not count. */
export const WITNESSES_ADDED = ADDED;
export const info = (name, detail) => ({ name, status: "info", detail });

/** The name of check ``name`` (a check's ``name`` as checkLog gives it) in the player's
 * language; a name this module does not make is given back as it is. */
export function logCheckName(name) {
  return Object.hasOwn(NAMES, name) ? NAMES[name]() : name;
}

/** "could not check: ...": a check without its proof, and why. */
export const couldNot = (why) => t("log.could_not_check", { why });

const base = (api) => String(api ?? "").replace(/\/$/, "");
export const keyName = (vkey) => vkey.split("+").slice(0, 2).join("+");

/**
 * GET ``path`` of the verify API. Returns {value} (text or parsed JSON), or {error,
 * down}: ``down`` when nothing answered, or it answered that it cannot now (5xx, 429):
 * could not check; otherwise the API answered something else than what was asked (a
 * 4xx, a body that is not JSON), which the caller may hold against the log.
 */
export async function ask(fetchImpl, api, path, as) {
  let r;
  try {
    r = await fetchImpl(`${base(api)}${path}`, { cache: "no-store" });
  } catch (e) {
    return { error: t("log.api.no_answer", { error: e.message }), down: true };
  }
  if (!r.ok) {
    let code;
    try {
      code = (await r.json())?.error ?? "";
    } catch {
      code = "";
    }
    const said = { status: String(r.status), code, path };
    return { error: code ? t("log.api.answered_code", said) : t("log.api.answered", said), down: r.status >= 500 || r.status === 429, status: r.status };
  }
  try {
    return { value: as === "text" ? await r.text() : await r.json() };
  } catch (e) {
    const said = { path, error: e.message };
    return { error: as === "text" ? t("log.api.not_text", said) : t("log.api.not_json", said), down: false };
  }
}

/**
 * Which key the tab checks the log with: the one it pinned (the store's, first sight
 * wins), else the one the page is told now. ``pinned``: the stored vkey or null; ``told``:
 * /v1/config's ``translog.vkey`` or null. Returns {vkey, told, pin, malformed}: ``pin``
 * the key to pin now (first sight), ``malformed`` why the told key is not a log key.
 */
export function logKeyOf(pinned, told) {
  if (pinned) return { vkey: pinned, told: told ?? null, pin: null, malformed: null };
  if (!told) return { vkey: null, told: null, pin: null, malformed: null };
  try {
    logVerifier(told);
  } catch (e) {
    return { vkey: null, told, pin: null, malformed: e.message };
  }
  return { vkey: told, told, pin: told, malformed: null };
}

/**
 * The log's latest checkpoint, verified under ``vkey``. Returns {checkpoint: {origin,
 * size, root (base64), note}}, {refused: {code, message}} (served, but its signature,
 * origin or form is not the log's), or {error, down} (no checkpoint had).
 */
export async function fetchCheckpoint(api, vkey, { fetchImpl = fetch } = {}) {
  let log;
  try {
    log = logVerifier(vkey);
  } catch (e) {
    return { refused: { code: e.code ?? "key_malformed", message: t("log.key.not_a_key", { why: e.message }) } };
  }
  const got = await ask(fetchImpl, api, "/checkpoint", "text");
  if (got.error) return { error: got.error, down: got.down };
  try {
    const cp = openCheckpoint(got.value, log);
    return { checkpoint: { origin: cp.origin, size: cp.size, root: cp.root_b64, note: cp.note } };
  } catch (e) {
    if (!(e instanceof TranslogError)) throw e;
    return { refused: { code: e.code, message: e.message } };
  }
}

/**
 * The witnesses the log takes cosignatures from (GET /v1/log/witnesses): {configured:
 * [vkey] (the operator's, ``source`` "configured": the ones this tab may pin), registered:
 * [vkey] (anyone's: they count for nothing here), malformed: [text]}, or {error, down}.
 * Only Ed25519 cosignature keys (type 0x04) whose key ID is their own are listed.
 */
export async function fetchWitnesses(api, { fetchImpl = fetch } = {}) {
  const got = await ask(fetchImpl, api, "/v1/log/witnesses", "json");
  if (got.error) return { error: got.error, down: got.down };
  const list = got.value?.witnesses;
  if (!Array.isArray(list)) return { error: t("log.api.no_witnesses"), down: false };
  const out = { configured: [], registered: [], malformed: [] };
  for (const w of list) {
    try {
      const v = witnessVerifier(w?.vkey);
      (w.source === "configured" ? out.configured : out.registered).push(v.vkey);
    } catch (e) {
      out.malformed.push(`${JSON.stringify(w?.vkey ?? null).slice(0, 80)}: ${e.message}`);
    }
  }
  out.configured = [...new Set(out.configured)].sort();
  out.registered = [...new Set(out.registered)].sort();
  return out;
}

/**
 * Which witnesses count for this tab: the set it pinned for the log key ``logVkey`` (the
 * store's, ``pinned``: {log, vkeys, pinned_at}, first sight wins), else the operator's
 * configured set the page is told now (``told``: fetchWitnesses' answer), pinned now if it
 * is not empty. Returns {vkeys, pin (the set to pin now, or null), added (configured now,
 * not pinned: said, not counted), error (why none could be had)}.
 */
export function witnessesOf(pinned, told, logVkey) {
  const now = told && !told.error ? told.configured : null;
  if (pinned && pinned.log === logVkey && Array.isArray(pinned.vkeys) && pinned.vkeys.length) {
    const added = (now ?? []).filter((v) => !pinned.vkeys.includes(v));
    return { vkeys: [...pinned.vkeys], pin: null, added, error: null };
  }
  if (now?.length) return { vkeys: [...now], pin: [...now], added: [], error: null };
  return { vkeys: [], pin: null, added: [], error: told?.error ?? null, down: told?.down ?? false };
}
