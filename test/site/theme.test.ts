/**
 * site/theme `readableOn` steps on the rounded channels of each candidate color: the same color as stepping on its hex
 * text (`mix` written out, `contrast` read back), which the theme did before, for colors, backgrounds and ratios alike.
 */
import { describe, expect, it } from 'vitest';
import { contrast, readableOn } from '../../src/site/theme';

/** The former `readableOn`: each step's color written as hex and its contrast read from that text. */
function readableOnByHex(color: string, background: string, ratio: number): string {
  const rgb = (hex: string) => {
    const h = hex.replace(/^#/, '');
    if (!/^[0-9a-fA-F]{6}$/.test(h)) return [52, 109, 219];
    const n = Number.parseInt(h, 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  };
  const toHex = (c: number[]) => `#${c.map((v) => Math.round(Math.min(255, Math.max(0, v))).toString(16).padStart(2, '0')).join('')}`;
  // The background's relative luminance, from its contrast with black: (L + 0.05) / 0.05.
  const target = contrast('#000000', background) * 0.05 - 0.05 > 0.4 ? '#000000' : '#ffffff';
  for (let step = 0; step <= 20; step++) {
    const [x, y] = [rgb(color), rgb(target)];
    const candidate = toHex([0, 1, 2].map((i) => x[i] + (y[i] - x[i]) * (step / 20)));
    if (contrast(candidate, background) >= ratio) return candidate;
  }
  return target;
}

describe('readableOn', () => {
  it('answers the color stepping on hex text answers, over a grid of colors, backgrounds and ratios', () => {
    const levels = [0x00, 0x1b, 0x34, 0x55, 0x80, 0xa3, 0xc8, 0xe8, 0xff].map((v) => v.toString(16).padStart(2, '0'));
    const colors = levels.flatMap((r) => levels.flatMap((g) => levels.map((b) => `#${r}${g}${b}`)));
    const backgrounds = ['#ffffff', '#111418', '#f6f7fb', '#1b2027', '#808080', '#346ddb'];
    let checked = 0;
    for (const background of backgrounds) {
      for (const color of colors) {
        for (const ratio of [3, 4.5]) {
          expect(readableOn(color, background, ratio), `${color} on ${background} at ${ratio}`).toBe(readableOnByHex(color, background, ratio));
          checked++;
        }
      }
    }
    expect(checked).toBe(6 * 729 * 2);
  });
});
