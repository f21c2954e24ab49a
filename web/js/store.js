// What the tab keeps between pages and reloads, in localStorage: the session, and for
// each match what the table showed this tab (see keeper.js). Every change is a fresh
// read, an edit and a write, so the stored copy is the one truth: the in-tab check reads
// it back from storage rather than trusting a copy in memory.

const SESSION_KEY = "belot.session";
/** The ruleset chosen in the lobby for "Play now" (lobby.js). */
const LOBBY_RULESET_KEY = "belot.lobby.ruleset";
/** The language the visitor chose in the header's menu (i18n.js: "ru", "bg", "en", "fr"). */
const LANGUAGE_KEY = "belot.language";
const KEPT_PREFIX = "belot.kept.";
/** The player's own drand relays (drand.js relayList: they replace the tab's defaults). */
const DRAND_RELAYS_KEY = "belot.drand.relays";
/** The transparency log's key, pinned the first time the page is told one (logcheck.js). */
const LOG_KEY = "belot.translog.key";
/** The log's witnesses (its operator's configured set), pinned with the log key the first
 * time the page is told a set that is not empty (logcheck.js witnessesOf). */
const LOG_WITNESSES_KEY = "belot.translog.witnesses";
/** The table's sounds muted (sound.js), by player: {player: true}. */
const SOUND_MUTED_KEY = "belot.sound.muted";
/** A seat's key by table (seatkey.js): {secret, key, table_id, made_at}. */
const SEAT_KEY_PREFIX = "belot.seatkey.";
/** The four-colour deck (deckstyle.js): true, or absent for the usual two colours. */
const FOUR_COLOUR_KEY = "belot.cards.fourColour";
/** Matches kept at most; the oldest are dropped past it. */
export const MAX_KEPT = 100;

export function makeStore(storage) {
  const read = (key) => {
    const text = storage.getItem(key);
    if (text === null) return null;
    try {
      return JSON.parse(text);
    } catch {
      return null;
    }
  };
  const write = (key, value) => storage.setItem(key, JSON.stringify(value));

  const keptKeys = () => {
    const keys = [];
    for (let i = 0; i < storage.length; i++) {
      const key = storage.key(i);
      if (key && key.startsWith(KEPT_PREFIX)) keys.push(key);
    }
    return keys;
  };

  return {
    session: () => read(SESSION_KEY),
    saveSession: (s) => write(SESSION_KEY, s),
    clearSession: () => storage.removeItem(SESSION_KEY),

    /** The language chosen on this browser, or null (none yet: the browser's decide). */
    language() {
      const code = read(LANGUAGE_KEY);
      return typeof code === "string" ? code : null;
    },
    saveLanguage: (code) => write(LANGUAGE_KEY, code),

    /** The ruleset the lobby's "Play now" uses (a name), or null: none chosen yet. */
    lobbyRuleset() {
      const name = read(LOBBY_RULESET_KEY);
      return typeof name === "string" ? name : null;
    },
    saveLobbyRuleset: (name) => write(LOBBY_RULESET_KEY, name),

    /** Whether ``player`` muted the table's sounds on this browser. */
    soundMuted(player) {
      const muted = read(SOUND_MUTED_KEY);
      return !!(muted && typeof muted === "object" && !Array.isArray(muted) && Object.hasOwn(muted, player) && muted[player] === true);
    },
    saveSoundMuted(player, muted) {
      const all = read(SOUND_MUTED_KEY);
      const next = all && typeof all === "object" && !Array.isArray(all) ? all : {};
      if (muted) next[player] = true;
      else delete next[player];
      write(SOUND_MUTED_KEY, next);
    },

    /** The player's choice of the four-colour deck (♣ green, ♦ blue): false until made. */
    fourColour: () => read(FOUR_COLOUR_KEY) === true,
    saveFourColour: (on) => write(FOUR_COLOUR_KEY, Boolean(on)),

    /** The drand relays the player chose (an array of addresses), or null: none chosen,
     * or what is stored is not such a list (the tab's defaults apply then). */
    drandRelays() {
      const relays = read(DRAND_RELAYS_KEY);
      return Array.isArray(relays) && relays.every((r) => typeof r === "string") ? relays : null;
    },
    /** Keep the player's relays (blank entries dropped; an empty list is a choice too:
     * only the server's relays are asked then). */
    saveDrandRelays: (relays) => write(DRAND_RELAYS_KEY, relays.map((r) => String(r).trim()).filter(Boolean)),
    clearDrandRelays: () => storage.removeItem(DRAND_RELAYS_KEY),

    /** The log key this tab pinned ({vkey, pinned_at}), or null. */
    logKey() {
      const k = read(LOG_KEY);
      return k && typeof k.vkey === "string" ? k : null;
    },
    /** Pin ``vkey`` unless a key is pinned already (first sight wins); the pinned one. */
    pinLogKey(vkey, now = Date.now()) {
      const pinned = this.logKey();
      if (pinned) return pinned;
      write(LOG_KEY, { vkey, pinned_at: now });
      return this.logKey();
    },

    /** The witnesses this tab pinned ({log (the log's vkey), vkeys, pinned_at}), or null. */
    logWitnesses() {
      const w = read(LOG_WITNESSES_KEY);
      return w && typeof w.log === "string" && Array.isArray(w.vkeys) && w.vkeys.every((v) => typeof v === "string") ? w : null;
    },
    /** Pin the witnesses ``vkeys`` of the log ``log`` unless a set is pinned for it already
     * (first sight wins; an empty set is never pinned); the pinned one. */
    pinLogWitnesses(log, vkeys, now = Date.now()) {
      const pinned = this.logWitnesses();
      if ((pinned && pinned.log === log) || !vkeys?.length) return pinned?.log === log ? pinned : null;
      write(LOG_WITNESSES_KEY, { log, vkeys: [...vkeys], pinned_at: now });
      return this.logWitnesses();
    },

    /** The key this page made for its seat at ``tableId`` ({secret, key}), or null. */
    seatKey(tableId) {
      const k = read(SEAT_KEY_PREFIX + tableId);
      return k && typeof k.secret === "string" && typeof k.key === "string" ? k : null;
    },
    /** Keep the key made for the seat at ``tableId`` (a new seat there gets a new key).
     * Kept as long as the matches are: the oldest go past MAX_KEPT. */
    saveSeatKey(tableId, key, now = Date.now()) {
      write(SEAT_KEY_PREFIX + tableId, { ...key, table_id: tableId, made_at: now });
      const keys = [];
      for (let i = 0; i < storage.length; i++) {
        const k = storage.key(i);
        if (k && k.startsWith(SEAT_KEY_PREFIX)) keys.push(k);
      }
      if (keys.length > MAX_KEPT) {
        const byAge = keys.map((k) => [read(k)?.made_at ?? 0, k]).sort((a, b) => a[0] - b[0]);
        for (const [, k] of byAge.slice(0, keys.length - MAX_KEPT)) storage.removeItem(k);
      }
    },

    /** The record kept for a match, or null. */
    kept: (matchId) => read(KEPT_PREFIX + matchId),

    saveKept(kept) {
      kept.saved_at = Date.now();
      write(KEPT_PREFIX + kept.match_id, kept);
      const keys = keptKeys();
      if (keys.length > MAX_KEPT) {
        const byAge = keys.map((k) => [read(k)?.saved_at ?? 0, k]).sort((a, b) => a[0] - b[0]);
        for (const [, k] of byAge.slice(0, keys.length - MAX_KEPT)) storage.removeItem(k);
      }
    },

    /** Read the match's record (or make it with ``init``), let ``edit`` change it, write it
     * back if ``edit`` says it changed anything; return the stored record. */
    updateKept(matchId, init, edit) {
      const kept = read(KEPT_PREFIX + matchId) ?? init();
      if (edit(kept)) this.saveKept(kept);
      return read(KEPT_PREFIX + matchId) ?? kept;
    },

    /** Every kept match, the latest first: {match_id, table_id, ruleset, saved_at}. */
    keptMatches() {
      return keptKeys()
        .map((k) => read(k))
        .filter(Boolean)
        .map((k) => ({ match_id: k.match_id, table_id: k.table_id, ruleset: k.ruleset, saved_at: k.saved_at }))
        .sort((a, b) => b.saved_at - a.saved_at);
    },
  };
}

export const store = typeof localStorage === "undefined" ? null : makeStore(localStorage);
