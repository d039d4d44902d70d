/**
 * micromark's `EditMap.consume` (micromark-util-edit-map 1.0.0, the latest) rebuilds the whole event
 * list for every edit batch, and micromark's document tokenizer makes one batch each time a container
 * closes: parsing a long nested list is quadratic (2,000 nested items: 2.4 s, 1.0 s with this fix).
 * This replacement applies the same edits but leaves the events before the first edit where they
 * are, which is all the original copies them for: the result is the same array, element for element.
 * micromark and its extensions share the one module instance (npm dedupes it), so the prototype
 * change reaches the parser. Remove it when micromark's own `consume` stops copying the prefix.
 */
import { EditMap } from 'micromark-util-edit-map';

type Change = [index: number, remove: number, add: unknown[]];

function consume(this: { map: Change[]; index: Map<number, Change> }, events: unknown[]): void {
  this.map.sort((a, b) => a[0] - b[0]);
  if (this.map.length === 0) return;
  const tails: unknown[][] = [];
  for (let index = this.map.length - 1; index >= 0; index--) {
    const [at, remove, add] = this.map[index];
    tails.push(events.slice(at + remove), add);
    events.length = at;
  }
  for (let slice = tails.pop(); slice; slice = tails.pop()) for (const event of slice) events.push(event);
  this.map.length = 0;
  this.index.clear();
}

(EditMap.prototype as unknown as { consume: typeof consume }).consume = consume;
