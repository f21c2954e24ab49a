// A seat's own key, and its signed request to leave (libs/fairdeal/leave.py says why).
//
// When this page takes a seat (or opens a table sitting at one) it makes an Ed25519 key
// pair, keeps the secret half in this browser's storage (store.js, by table) and sends
// the public half with the seat. The commitment records it before any seed or card.
// Leaving a started match loses it, so the table takes a leave only with the seat's
// signature over leaveMessage(match, seat), and the forfeit it writes carries it: anyone
// checking the match (belot verify, the verify API) sees the seat asked, and a forfeit
// the server wrote on its own fails there. Ed25519 is @noble/curves' (vendored,
// web/vendor/MANIFEST.json), as the log's signatures in translog.js; its secret key comes
// from the browser's crypto.getRandomValues.
//
// A page that lost its storage has lost the key: it cannot sign, and its seat can no
// longer leave the match (the turn timer plays for an absent seat). That is the price of
// a leave nobody else can sign.

import { ed25519 } from "@noble/curves/ed25519.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";

/** The first line of what a seat signs (fairdeal.leave.LEAVE_CONTEXT). */
export const LEAVE_CONTEXT = "belot-leave/1";

/** What a seat signs to leave a match: three lines of UTF-8 text. */
export function leaveMessage(matchId, seat) {
  return new TextEncoder().encode(`${LEAVE_CONTEXT}\n${matchId}\n${seat}\n`);
}

/** A fresh key pair, hex: {secret, key}. */
export function newSeatKey() {
  const { secretKey, publicKey } = ed25519.keygen();
  return { secret: bytesToHex(secretKey), key: bytesToHex(publicKey) };
}

/** The seat's signature, hex, over its leave of ``matchId``. */
export function signLeave(secretHex, matchId, seat) {
  return bytesToHex(ed25519.sign(leaveMessage(matchId, seat), hexToBytes(secretHex)));
}

/** Does ``signatureHex`` sign the leave of ``seat`` from ``matchId`` with ``keyHex``? */
export function verifyLeave(keyHex, matchId, seat, signatureHex) {
  try {
    return ed25519.verify(hexToBytes(signatureHex), leaveMessage(matchId, seat), hexToBytes(keyHex), { zip215: false });
  } catch {
    return false;
  }
}
