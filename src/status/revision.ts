// Flux's revision shortening (flux2 internal/utils/hex.go TruncateHex). Pure.

const HEX = /\b[a-f0-9]{40,128}\b/g;

/**
 * Replaces every lowercase hex run of 40–128 characters (SHA-1 to SHA-512) with its first 8 characters, as
 * `flux get` does: `main@sha1:5c6a8ee0…` → `main@sha1:5c6a8ee0`. Anything else is returned unchanged.
 */
export const shortRevision = (rev: string | null | undefined): string => (rev ? rev.replace(HEX, (h) => h.slice(0, 8)) : '');
