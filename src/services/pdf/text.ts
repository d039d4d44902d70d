/**
 * Text for the PDF's standard fonts. pdf-lib's 14 standard fonts (Helvetica, Courier...) are not
 * embedded and encode WinAnsi only (Latin-1 plus a few typographic signs): `drawText` throws on any
 * other character. Embedding a Unicode font would need a TrueType file shipped in the Worker and
 * fontkit (neither is part of this project), so page text is reduced to WinAnsi instead:
 *
 * - a few common signs get an ASCII spelling (arrows, comparison signs, check marks, dashes);
 * - letters with accents outside Latin-1 lose the accent (`ā` -> `a`, `ł` stays `?`), ligatures are
 *   split (`ﬁ` -> `fi`), through Unicode compatibility decomposition;
 * - invisible characters (zero-width spaces, joiners, byte order marks, controls) are dropped;
 * - everything else (CJK, Cyrillic, Greek, emoji...) becomes `?`.
 *
 * This is a known limitation of the export: such text is readable in the page tree's outline (whose
 * titles are UTF-16) but not in the page bodies. Nothing here ever throws.
 */

const SUBSTITUTES: Record<string, string> = {
  '\u2190': '<-',
  '\u2192': '->',
  '\u2194': '<->',
  '\u2191': '^',
  '\u2193': 'v',
  '\u21d0': '<=',
  '\u21d2': '=>',
  '\u21d4': '<=>',
  '\u2264': '<=',
  '\u2265': '>=',
  '\u2260': '!=',
  '\u2248': '~',
  '\u2212': '-',
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2015': '-',
  '\u2043': '-',
  '\u2713': 'v',
  '\u2714': 'v',
  '\u2705': '[v]',
  '\u2717': 'x',
  '\u2718': 'x',
  '\u274c': '[x]',
  '\u25cf': '\u2022',
  '\u25e6': '\u2022',
  '\u25aa': '\u2022',
  '\u25a0': '\u2022',
  '\u2219': '\u2022',
  '\u2027': '\u00b7',
  '\u2032': "'",
  '\u2033': '"',
  '\u00ad': '',
  '\u2028': ' ',
  '\u2029': ' ',
  '\u2002': ' ',
  '\u2003': ' ',
  '\u2009': ' ',
  '\u202f': ' ',
};

const INVISIBLE = /[\u200b-\u200f\u2060-\u2064\ufeff\ufe0e\ufe0f]/;
const COMBINING = /[\u0300-\u036f]/g;

/** Turns any string into one the standard fonts can draw, given the fonts' character set. */
export class WinAnsiText {
  private readonly cache = new Map<number, string>();

  constructor(private readonly supported: ReadonlySet<number>) {}

  /** The text with newlines kept (callers split lines), tabs as `tabWidth` spaces, every other character encodable. */
  clean(text: string, tabWidth = 4): string {
    let out = '';
    for (const char of text) {
      const code = char.codePointAt(0)!;
      if (code === 0x0a) out += '\n';
      else if (code === 0x09) out += ' '.repeat(tabWidth);
      else if (code === 0x0d) continue;
      else if (code < 0x20 || (code >= 0x7f && code < 0xa0)) continue;
      else if (this.supported.has(code)) out += char;
      else out += this.replacement(code, char);
    }
    return out;
  }

  private replacement(code: number, char: string): string {
    const cached = this.cache.get(code);
    if (cached !== undefined) return cached;
    let result: string;
    if (Object.hasOwn(SUBSTITUTES, char)) result = SUBSTITUTES[char];
    else if (INVISIBLE.test(char)) result = '';
    else {
      const decomposed = char.normalize('NFKD').replace(COMBINING, '');
      const usable = decomposed !== '' && decomposed !== char && [...decomposed].every((c) => this.supported.has(c.codePointAt(0)!));
      result = usable ? decomposed : '?';
    }
    // A replacement made of several code points is checked too: substitutes are ASCII or WinAnsi.
    this.cache.set(code, result);
    return result;
  }
}
