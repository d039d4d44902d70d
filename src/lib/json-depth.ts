/** Nesting depth of a JSON value (a scalar is 0), measured without recursion so deep input cannot overflow the stack. */
export function jsonDepth(value: unknown, limit = Infinity): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (!item || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}
