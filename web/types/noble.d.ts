// The vendored @noble libraries (web/vendor/@noble, byte for byte from npm, where they
// ship without their .d.ts files) as the fair-deal modules use them: what
// web/tsconfig.json's check sees of them. Their own code is theirs, not checked here.
declare module "@noble/curves/bls12-381.js" {
  export const bls12_381: any;
}
declare module "@noble/curves/ed25519.js" {
  export const ed25519: {
    verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array, options?: { zip215?: boolean }): boolean;
    sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array;
    keygen(seed?: Uint8Array): { secretKey: Uint8Array; publicKey: Uint8Array };
  };
}
declare module "@noble/hashes/sha2.js" {
  export function sha256(data: Uint8Array): Uint8Array;
}
declare module "@noble/hashes/utils.js" {
  export function bytesToHex(bytes: Uint8Array): string;
  export function hexToBytes(hex: string): Uint8Array;
}
