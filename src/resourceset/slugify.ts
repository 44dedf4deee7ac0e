// gosimple/slug v1.15.0's Make as flux-operator configures it (MaxLength 63, smart truncate, language "en"): the
// English substitutions, transliteration to ASCII, lower case, anything but [a-zA-Z0-9-_] to '-', dashes collapsed,
// '-' and '_' trimmed from the ends, then cut at the last '-' within 63 bytes. Transliteration here covers Latin
// letters (diacritics dropped, ß ss, æ ae, ø o, ...); any other non-ASCII letter (Cyrillic, CJK, ...) is an error
// naming it, since gosimple/unidecode's table for it is not reproduced.
import { FuncError } from '../gotemplate/template.js';

const MAX = 63;

// slug's defaultSub merged into enSub.
const EN_SUB: Record<string, string> = { '&': 'and', '@': 'at', '"': '', "'": '', '\u2019': '', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-' };

const LATIN: Record<string, string> = {
  ß: 'ss', æ: 'ae', Æ: 'AE', ø: 'o', Ø: 'O', œ: 'oe', Œ: 'OE', ł: 'l', Ł: 'L', đ: 'd', Đ: 'D', ð: 'd', Ð: 'D', þ: 'th', Þ: 'TH', ı: 'i', ħ: 'h', Ħ: 'H',
  '\u00a0': ' ', '\u2018': "'", '\u201c': '"', '\u201d': '"', '\u2026': '...', '\u2022': '*',
};

export function slugify(s: string): string {
  let out = '';
  for (const ch of s.trim()) out += EN_SUB[ch] ?? ch;
  out = transliterate(out).toLowerCase();
  out = out.replace(/[^a-zA-Z0-9\-_]/g, '-').replace(/-+/g, '-').replace(/^[-_]+|[-_]+$/g, '');
  if (out.length > MAX) {
    const cut = out.lastIndexOf('-', MAX);
    out = cut >= 0 ? out.slice(0, cut) : out.slice(0, MAX);
  }
  return out;
}

function transliterate(s: string): string {
  let out = '';
  for (const ch of s) {
    if (ch.charCodeAt(0) < 0x80) {
      out += ch;
      continue;
    }
    if (LATIN[ch] !== undefined) {
      out += LATIN[ch];
      continue;
    }
    const base = ch.normalize('NFKD').replace(/\p{M}/gu, '');
    if (/^[\x00-\x7f]+$/.test(base)) {
      out += base;
      continue;
    }
    // Marks, symbols and spaces become '-' anyway (unidecode maps most to punctuation or nothing).
    if (!/[\p{L}\p{N}]/u.test(ch)) {
      out += '-';
      continue;
    }
    throw new FuncError(`standup cannot transliterate ${JSON.stringify(ch)} as gosimple/slug does (only Latin letters are reproduced)`);
  }
  return out;
}
