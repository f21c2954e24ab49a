// The server's receipt for this seat's seed, signed with the match's receipt key
// (libs/fairdeal/receipts.py says why): the randomness service draws a key for each
// match, the commitment records its public half before any seed, and the receipt for a
// seed carries its signature over receiptMessage(). Signed, the receipt proves to anyone
// holding the commitment that the server acknowledged that seed at that place. Ed25519
// is @noble/curves' (vendored), as the log's and the seat's keys.

import { ed25519 } from "@noble/curves/ed25519.js";
import { hexToBytes } from "@noble/hashes/utils.js";

/** The first line of what the key signs (fairdeal.receipts.RECEIPT_CONTEXT). */
export const RECEIPT_CONTEXT = "belot-seed-receipt/1";

/** What the match's receipt key signs: six lines of UTF-8 text. */
export function receiptMessage(r) {
  return new TextEncoder().encode(`${RECEIPT_CONTEXT}\n${r.match_id}\n${r.seat}\n${r.seed_sha256}\n${r.stream}\n${r.version}\n`);
}

const checked = new Map(); // key + message + signature -> bool: checkLive runs often

/** Is the receipt ``r`` signed with the receipt key ``keyHex``? Never throws. */
export function verifyReceipt(keyHex, r) {
  if (typeof keyHex !== "string" || typeof r?.signature !== "string" || !/^[0-9a-f]{128}$/.test(r.signature)) return false;
  const id = `${keyHex}|${r.match_id}|${r.seat}|${r.seed_sha256}|${r.stream}|${r.version}|${r.signature}`;
  if (!checked.has(id)) {
    let ok;
    try {
      ok = ed25519.verify(hexToBytes(r.signature), receiptMessage(r), hexToBytes(keyHex), { zip215: false });
    } catch {
      ok = false;
    }
    if (checked.size > 64) checked.clear();
    checked.set(id, ok);
  }
  return checked.get(id);
}
