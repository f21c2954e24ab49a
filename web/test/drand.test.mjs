// The tab's drand module (web/js/drand.js) on the recorded real beacons of
// tests/data/drand-quicknet.json (the Python side verifies the same ones in
// tests/unit/test_drand_verify.py), on forgeries of them, and with fake relays.
// drand.js imports the vendored noble modules by bare names: web/node/importmap.mjs
// applies index.html's import map, so it is imported first and drand.js after it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import "../node/importmap.mjs";
import { memoryStorage } from "../node/memstorage.mjs";
import { makeStore } from "../js/store.js";

const { CHAINS, DEFAULT_RELAYS, verifyBeacon, roundTime, roundAt, fetchRound, relayList, normalizeRelay } = await import("../js/drand.js");
const { bls12_381 } = await import("@noble/curves/bls12-381.js");
const { sha256 } = await import("@noble/hashes/sha2.js");
const { bytesToHex, hexToBytes } = await import("@noble/hashes/utils.js");

const data = JSON.parse(readFileSync(new URL("../../tests/data/drand-quicknet.json", import.meta.url), "utf8"));
const QUICKNET = [...data.quicknet.beacons, ...data.quicknet.signature_only_beacons];
const DEFAULT = [...data.mainnet_default.beacons, ...data.mainnet_default.signature_only_beacons];
const only = ({ round, signature, previous_signature }) => (previous_signature === undefined ? { round, signature } : { round, signature, previous_signature });

/** ``hex`` with bit ``bit`` flipped. */
function flip(hex, bit) {
  const b = hexToBytes(hex);
  b[Math.floor(bit / 8) % b.length] ^= 1 << bit % 8;
  return bytesToHex(b);
}

const refused = (result, pattern) => {
  assert.equal(result.ok, false, `expected a refusal, got ${JSON.stringify(result)}`);
  assert.equal(result.randomness, null);
  assert.match(result.why, pattern);
};

test("the recorded data holds both chains' beacons, with the same keys as drand.js", () => {
  assert.ok(QUICKNET.length >= 10 && DEFAULT.length >= 10, `${QUICKNET.length} ${DEFAULT.length}`);
  assert.equal(data.quicknet.chain_info_v1.public_key, CHAINS.quicknet.publicKey);
  assert.equal(data.quicknet.chain_info_v1.hash, CHAINS.quicknet.hash);
  assert.equal(data.mainnet_default.chain_info_v1.public_key, CHAINS.default.publicKey);
  assert.equal(data.mainnet_default.chain_info_v1.hash, CHAINS.default.hash);
});

test("every recorded quicknet beacon verifies, and its randomness is SHA-256 of its signature", () => {
  for (const b of QUICKNET) {
    const got = verifyBeacon("quicknet", only(b));
    assert.deepEqual(got, { ok: true, randomness: bytesToHex(sha256(hexToBytes(b.signature))), why: null }, `round ${b.round}`);
    if (b.randomness) {
      assert.equal(got.randomness, b.randomness, `round ${b.round}`);
      // As a v1 relay serves it, randomness included (in upper case too: hex is hex).
      assert.equal(verifyBeacon("quicknet", { ...only(b), randomness: b.randomness }).ok, true);
      assert.equal(verifyBeacon("quicknet", { round: b.round, signature: b.signature.toUpperCase() }).ok, true);
    }
  }
});

test("every recorded default-chain beacon verifies with its previous signature", () => {
  for (const b of DEFAULT) {
    const got = verifyBeacon("default", only(b));
    assert.equal(got.ok, true, `round ${b.round}: ${got.why}`);
    if (b.randomness) assert.equal(got.randomness, b.randomness, `round ${b.round}`);
  }
  // Round 1 was chained to the genesis seed.
  const first = DEFAULT.find((b) => b.round === 1);
  assert.equal(first.previous_signature, CHAINS.default.genesisSeed);
});

test("the docs' example signature of round 367 does not verify as round 5860648 (the v2 docs' label)", () => {
  const b = DEFAULT.find((x) => x.round === 367);
  assert.equal(verifyBeacon("default", only(b)).ok, true);
  refused(verifyBeacon("default", { ...only(b), round: 5860648 }), /does not verify for round 5860648 of default/);
});

test("a made-up signature fails, though its randomness is SHA-256 of it (all the old check asked)", () => {
  // 48 bytes that are a point of G1's subgroup, but no one's signature of round 5.
  const fake = bytesToHex(bls12_381.G1.Point.BASE.multiply(123456789n).toBytes());
  const randomness = bytesToHex(sha256(hexToBytes(fake)));
  refused(verifyBeacon("quicknet", { round: 5, signature: fake, randomness }), /^the signature does not verify for round 5 of quicknet under its pinned public key$/);
  // 48 bytes of anything: most are not a point at all.
  const junk = bytesToHex(sha256(new TextEncoder().encode("junk")).slice(0, 16)) + "8".repeat(64);
  refused(verifyBeacon("quicknet", { round: 5, signature: "a" + junk.slice(1) }), /the signature (is not a point|does not verify)/);
  refused(verifyBeacon("quicknet", { round: 5, signature: "c0" + "00".repeat(47) }), /the signature is the point at infinity/);
  refused(verifyBeacon("quicknet", { round: 5, signature: "00".repeat(48) }), /is not a point of G1's prime-order subgroup/);
  refused(verifyBeacon("quicknet", { round: 5, signature: "ff".repeat(48) }), /is not a point of G1's prime-order subgroup/);
  // A made-up G2 point for the default chain.
  const fake2 = bytesToHex(bls12_381.G2.Point.BASE.multiply(987654321n).toBytes());
  refused(verifyBeacon("default", { round: 7, signature: fake2, previous_signature: DEFAULT[0].signature }), /does not verify for round 7 of default .*previous signature/);
});

test("a real signature of another round fails", () => {
  for (const b of QUICKNET.slice(0, 6)) {
    refused(verifyBeacon("quicknet", { round: b.round + 1, signature: b.signature }), new RegExp(`does not verify for round ${b.round + 1} of quicknet`));
  }
  for (const b of DEFAULT.slice(0, 4)) {
    refused(verifyBeacon("default", { ...only(b), round: b.round + 1 }), /does not verify/);
    refused(verifyBeacon("default", { ...only(b), previous_signature: flip(b.previous_signature, 5) }), /does not verify/);
  }
  // The other chain's beacon: wrong length for it.
  refused(verifyBeacon("default", only(QUICKNET[0])), /48 bytes; default signatures are 96/);
});

test("a signature with one bit flipped fails, wherever the bit is", () => {
  const b = QUICKNET[3];
  for (let bit = 0; bit < 384; bit += 7) {
    refused(verifyBeacon("quicknet", { round: b.round, signature: flip(b.signature, bit) }), /^the signature (is not a point|does not verify|is the point at infinity)/);
  }
  const d = DEFAULT[2];
  for (const bit of [0, 77, 300, 767]) refused(verifyBeacon("default", { ...only(d), signature: flip(d.signature, bit) }), /^the signature/);
});

test("a signature of the wrong length, or not hexadecimal, fails saying so", () => {
  const sig = QUICKNET[0].signature;
  refused(verifyBeacon("quicknet", { round: 1, signature: sig.slice(0, 94) }), /^the signature is 47 bytes; quicknet signatures are 48 \(a compressed G1 point\)$/);
  refused(verifyBeacon("quicknet", { round: 1, signature: sig + "00" }), /49 bytes/);
  refused(verifyBeacon("quicknet", { round: 1, signature: "" }), /0 bytes/);
  refused(verifyBeacon("quicknet", { round: 1, signature: sig + sig }), /96 bytes; quicknet signatures are 48/);
  refused(verifyBeacon("quicknet", { round: 1, signature: sig.slice(1) }), /not hexadecimal/);
  refused(verifyBeacon("quicknet", { round: 1, signature: "zz" + sig.slice(2) }), /not hexadecimal/);
  refused(verifyBeacon("quicknet", { round: 1 }), /not hexadecimal/);
});

test("a valid signature paired with another randomness fails", () => {
  const [a, b] = QUICKNET;
  refused(verifyBeacon("quicknet", { ...only(a), randomness: b.randomness }), new RegExp(`the randomness given, ${b.randomness}, is not SHA-256 of the signature, ${a.randomness}`));
  refused(verifyBeacon("quicknet", { ...only(a), randomness: "00" }), /not 32 bytes of hexadecimal/);
  const d = DEFAULT[0];
  refused(verifyBeacon("default", { ...only(d), randomness: flip(d.randomness, 0) }), /is not SHA-256 of the signature/);
});

test("chains, rounds and previous signatures are checked before any curve arithmetic", () => {
  const q = QUICKNET[0];
  const d = DEFAULT[0];
  refused(verifyBeacon("evmnet", only(q)), /unknown drand chain evmnet/);
  refused(verifyBeacon("toString", only(q)), /unknown drand chain toString/);
  refused(verifyBeacon(CHAINS.quicknet, only(q)), /unknown drand chain/);
  for (const round of [0, -1, 1.5, "1", 2 ** 53, null]) refused(verifyBeacon("quicknet", { round, signature: q.signature }), /is not a whole number from 1/);
  refused(verifyBeacon("default", { round: d.round, signature: d.signature }), /chained chain: a beacon needs its previous signature/);
  refused(verifyBeacon("quicknet", { ...only(q), previous_signature: "00".repeat(48) }), /quicknet is unchained: a beacon has no previous signature/);
  assert.equal(verifyBeacon("quicknet", { ...only(q), previous_signature: "" }).ok, true);
  refused(verifyBeacon("quicknet", null), /not a whole number/);
});

test("the pinned chains are frozen", () => {
  assert.ok(Object.isFrozen(CHAINS) && Object.isFrozen(CHAINS.quicknet) && Object.isFrozen(DEFAULT_RELAYS));
  assert.throws(() => {
    "use strict";
    CHAINS.quicknet.publicKey = "00";
  }, TypeError);
});

test("round and time: drand's arithmetic, in milliseconds", () => {
  // The same values tests/unit/test_drand_verify.py checks (drand/drand common/time.go).
  assert.equal(roundTime("quicknet", 1), 1692803367000);
  assert.equal(roundTime("quicknet", 2), 1692803370000);
  assert.equal(roundTime(CHAINS.quicknet, 100), (1692803367 + 99 * 3) * 1000);
  assert.equal(roundTime("default", 2), 1595431080000);
  assert.equal(roundAt("quicknet", 1692803367000), 1);
  assert.equal(roundAt("quicknet", 1692803369999), 1);
  assert.equal(roundAt("quicknet", 1692803370000), 2);
  assert.equal(roundAt("quicknet", 0), 1);
  assert.equal(roundAt("default", 1595431080000 + 29999), 2);
  for (const r of [1, 2, 1000, 30662982]) assert.equal(roundAt("quicknet", roundTime("quicknet", r)), r);
  assert.throws(() => roundTime("quicknet", 0), RangeError);
  assert.throws(() => roundTime("fastnet", 1), /unknown drand chain fastnet/);
  assert.throws(() => roundAt({ ...CHAINS.quicknet, period: 1 }, 0), /unknown drand chain quicknet/);
});

/** A fake relay network: ``answers`` maps a relay to what it does; every request is logged. */
function network(answers) {
  const log = [];
  const fetchImpl = (url, { signal }) => {
    const relay = Object.keys(answers).find((r) => url.startsWith(r + "/"));
    const entry = { url, signal };
    log.push(entry);
    const a = answers[relay];
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        entry.aborted = true;
        const e = new Error("The operation was aborted.");
        e.name = "AbortError";
        reject(e);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      if (a.hang) return;
      setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        if (a.throws) reject(new TypeError(a.throws));
        else if (a.status) resolve({ ok: false, status: a.status, json: async () => ({}) });
        else resolve({ ok: true, status: 200, json: async () => structuredClone(a.beacon) });
      }, a.after ?? 0);
    });
  };
  return { fetchImpl, log };
}

const beacon = (b) => ({ ...only(b), randomness: b.randomness });

test("fetchRound: the first answer that verifies wins; a faster liar is named, not believed", async () => {
  const b = QUICKNET.find((x) => x.round === 3);
  const forged = { ...beacon(b), signature: bytesToHex(bls12_381.G1.Point.BASE.multiply(7n).toBytes()) };
  forged.randomness = bytesToHex(sha256(hexToBytes(forged.signature)));
  const { fetchImpl, log } = network({
    "https://liar.example": { beacon: forged, after: 0 },
    "https://honest.example": { beacon: beacon(b), after: 30 },
    "https://slow.example": { beacon: beacon(b), after: 2000 },
  });
  const got = await fetchRound(["https://liar.example", { url: "https://honest.example/" }, "https://slow.example"], "quicknet", 3, { fetchImpl });
  assert.deepEqual(got.beacon, { round: 3, signature: b.signature, randomness: b.randomness });
  assert.equal(got.relay, "https://honest.example");
  assert.deepEqual(got.lying.map((x) => x.relay), ["https://liar.example"]);
  assert.match(got.lying[0].why, /does not verify for round 3 of quicknet/);
  assert.deepEqual(got.failed, []);
  assert.deepEqual(log.map((x) => x.url), [
    `https://liar.example/${CHAINS.quicknet.hash}/public/3`,
    `https://honest.example/${CHAINS.quicknet.hash}/public/3`,
    `https://slow.example/${CHAINS.quicknet.hash}/public/3`,
  ]);
  assert.equal(log[2].aborted, true, "the slow relay is no longer waited for");
});

test("fetchRound: a relay's randomness is not taken: the one returned is computed from the signature", async () => {
  const b = QUICKNET[1];
  const { fetchImpl } = network({
    "https://a.example": { beacon: { ...beacon(b), randomness: QUICKNET[0].randomness } },
    "https://b.example": { beacon: only(b), after: 20 }, // a v2-style answer: no randomness
  });
  const got = await fetchRound(["https://a.example", "https://b.example"], "quicknet", b.round, { fetchImpl });
  assert.equal(got.relay, "https://b.example");
  assert.equal(got.beacon.randomness, b.randomness);
  assert.match(got.lying[0].why, /is not SHA-256 of the signature/);
});

test("fetchRound: a valid beacon of another round is a lie", async () => {
  const [one, two] = QUICKNET;
  const { fetchImpl } = network({ "https://a.example": { beacon: beacon(one) } });
  const got = await fetchRound(["https://a.example"], "quicknet", two.round, { fetchImpl });
  assert.equal(got.beacon, undefined);
  assert.deepEqual(got.lying, [{ relay: "https://a.example", why: `asked for round ${two.round}, it served round ${one.round}` }]);
  assert.match(got.error, /^no drand relay served a beacon of round 2 that verifies: 1 served a false one \(https:\/\/a\.example: asked for round 2/);
});

test("fetchRound: when every relay lies, the error names each and why", async () => {
  const b = DEFAULT.find((x) => x.round === 2);
  const { fetchImpl } = network({
    "https://a.example": { beacon: { ...beacon(b), previous_signature: DEFAULT[0].previous_signature } },
    "https://b.example": { beacon: { ...beacon(b), signature: flip(b.signature, 9) } },
    "https://c.example": { status: 503 },
  });
  const got = await fetchRound(["https://a.example", "https://b.example", "https://c.example"], "default", 2, { fetchImpl });
  assert.equal(got.beacon, undefined);
  assert.deepEqual(got.lying.map((x) => x.relay).sort(), ["https://a.example", "https://b.example"]);
  assert.deepEqual(got.failed, [{ relay: "https://c.example", why: "HTTP 503", status: 503 }]);
  assert.match(got.error, /2 served a false one \(.*https:\/\/a\.example: the signature does not verify.*\), 1 gave none \(https:\/\/c\.example: HTTP 503\)$/);
});

test("fetchRound: none answering is an error saying so, relay by relay", async () => {
  const { fetchImpl } = network({
    "https://down.example": { throws: "Failed to fetch" },
    "https://hangs.example": { hang: true },
    "https://gone.example": { status: 404 },
    "https://odd.example": { beacon: { hello: "world" } },
  });
  const started = Date.now();
  const got = await fetchRound(["https://down.example", "https://hangs.example", "https://gone.example", "https://odd.example"], "quicknet", 5, { fetchImpl, timeoutMs: 60 });
  assert.ok(Date.now() - started < 1000);
  assert.equal(got.beacon, undefined);
  assert.deepEqual(got.lying, []);
  assert.deepEqual(
    Object.fromEntries(got.failed.map((x) => [x.relay, x.why])),
    {
      "https://down.example": "Failed to fetch",
      "https://hangs.example": "no answer in 60 ms",
      "https://gone.example": "HTTP 404",
      "https://odd.example": "the answer is not a drand beacon",
    },
  );
  assert.match(got.error, /^none of the 4 drand relays asked answered with a beacon \(.*https:\/\/hangs\.example: no answer in 60 ms.*\)$/);
});

test("fetchRound: nothing to ask, or nothing askable, says so", async () => {
  const fetchImpl = () => assert.fail("nothing should be fetched");
  assert.equal((await fetchRound([], "quicknet", 1, { fetchImpl })).error, "no drand relay to ask");
  assert.equal((await fetchRound(["ftp://x", "not a url"], "quicknet", 1, { fetchImpl })).error, "no drand relay to ask");
  assert.equal((await fetchRound(["https://a"], "nope", 1, { fetchImpl })).error, "unknown drand chain nope");
  assert.match((await fetchRound(["https://a"], "quicknet", 0, { fetchImpl })).error, /not a whole number/);
});

test("fetchRound: the latest round, the answer's time of arrival, and a signal that stops it all", async () => {
  const b = QUICKNET.find((x) => x.round === 1001);
  let clock = 5_000;
  const { fetchImpl, log } = network({
    "https://a.example": { beacon: beacon(b), after: 10 },
    "https://hangs.example": { hang: true },
  });
  const got = await fetchRound(["https://a.example", "https://hangs.example"], "quicknet", "latest", { fetchImpl, now: () => clock++ });
  assert.equal(got.beacon.round, 1001, "a latest answer names its round, and is verified for it");
  assert.equal(got.at, 5_000, "when the answer arrived, on the clock given");
  assert.equal(log[0].url, `https://a.example/${CHAINS.quicknet.hash}/public/latest`);
  assert.equal(log[1].aborted, true);
  // A latest answer whose signature is another round's is a lie.
  const liar = network({ "https://l.example": { beacon: { ...beacon(b), round: 1002 } } });
  const lied = await fetchRound(["https://l.example"], "quicknet", "latest", { fetchImpl: liar.fetchImpl });
  assert.match(lied.lying[0].why, /does not verify for round 1002/);
  // The page leaves: every request stops at once.
  const stop = new AbortController();
  const hung = network({ "https://hangs.example": { hang: true } });
  const pending = fetchRound(["https://hangs.example"], "quicknet", 7, { fetchImpl: hung.fetchImpl, signal: stop.signal, timeoutMs: 60_000 });
  stop.abort();
  const stopped = await pending;
  assert.deepEqual(stopped.failed, [{ relay: "https://hangs.example", why: "stopped" }]);
  assert.equal((await fetchRound(["https://a.example"], "quicknet", 7, { fetchImpl, signal: stop.signal })).error, "stopped");
});

test("fetchRound: the default chain's answer keeps its previous signature", async () => {
  const b = DEFAULT.find((x) => x.round === 1337);
  const { fetchImpl } = network({ "http://127.0.0.1:9": { beacon: beacon(b) } });
  const got = await fetchRound(["http://127.0.0.1:9"], "default", 1337, { fetchImpl });
  assert.deepEqual(got.beacon, { round: 1337, signature: b.signature, previous_signature: b.previous_signature, randomness: b.randomness });
});

test("relayList: the tab's own relays first, then the server's, each once, saying where from", () => {
  assert.deepEqual(DEFAULT_RELAYS, ["https://api.drand.sh", "https://api2.drand.sh", "https://api3.drand.sh", "https://drand.cloudflare.com", "https://api.drand.secureweb3.com:6875"]);
  const server = ["http://relay.local:8080/", "https://api.drand.sh", "https://API2.drand.sh/"];
  assert.deepEqual(relayList({ server }), [
    ...DEFAULT_RELAYS.map((url) => ({ url, source: "tab" })),
    { url: "http://relay.local:8080", source: "server" },
  ]);
  // The player's list replaces the tab's defaults; bad entries are left out.
  assert.deepEqual(relayList({ player: ["https://mine.example/drand/", "javascript:alert(1)", "https://mine.example/drand", "https://u:p@x.example"], server }), [
    { url: "https://mine.example/drand", source: "player" },
    { url: "http://relay.local:8080", source: "server" },
    { url: "https://api.drand.sh", source: "server" },
    { url: "https://api2.drand.sh", source: "server" },
  ]);
  assert.deepEqual(relayList({ player: [], server: ["https://only.example"] }), [{ url: "https://only.example", source: "server" }]);
  assert.deepEqual(relayList(), DEFAULT_RELAYS.map((url) => ({ url, source: "tab" })));
  assert.equal(normalizeRelay(" https://api.drand.sh/ "), "https://api.drand.sh");
  assert.equal(normalizeRelay("https://a.example/?x=1"), null);
  assert.equal(normalizeRelay(42), null);
});

test("store: the player's relays are kept in localStorage under belot.drand.relays", () => {
  const items = new Map();
  const storage = memoryStorage(items);
  const store = makeStore(storage);
  assert.equal(store.drandRelays(), null);
  store.saveDrandRelays([" https://mine.example ", "", "https://other.example"]);
  assert.equal(items.get("belot.drand.relays"), '["https://mine.example","https://other.example"]');
  assert.deepEqual(store.drandRelays(), ["https://mine.example", "https://other.example"]);
  assert.deepEqual(relayList({ player: store.drandRelays() }).map((r) => r.source), ["player", "player"]);
  items.set("belot.drand.relays", '{"not": "a list"}');
  assert.equal(store.drandRelays(), null);
  items.set("belot.drand.relays", "not json");
  assert.equal(store.drandRelays(), null);
  store.saveDrandRelays([]);
  assert.deepEqual(store.drandRelays(), []);
  store.clearDrandRelays();
  assert.equal(store.drandRelays(), null);
});

test("how long one verification takes here", (t) => {
  const time = (chain, b, n) => {
    const start = performance.now();
    for (let i = 0; i < n; i++) assert.equal(verifyBeacon(chain, only(b)).ok, true);
    return (performance.now() - start) / n;
  };
  const q = QUICKNET[QUICKNET.length - 1];
  const d = DEFAULT[DEFAULT.length - 1];
  t.diagnostic(`drand verification, Node ${process.version}: quicknet ${time("quicknet", q, 20).toFixed(1)} ms, default chain ${time("default", d, 20).toFixed(1)} ms (mean of 20, warm)`);
});
