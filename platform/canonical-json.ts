/**
 * JSON with object keys sorted, so the same request hashes the same whatever its key order.
 *
 * The text is written as pieces into one list joined once at the end, by an explicit stack: a
 * string built level by level would copy each inner level's text again at every level above it,
 * and recursion would follow the value's depth onto the call stack.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  // A piece of text to write as it is, or a value still to be written.
  const stack: ({ text: string } | { value: unknown })[] = [{ value }];
  while (stack.length > 0) {
    const next = stack.pop() as { text: string } | { value: unknown };
    if ('text' in next) {
      out.push(next.text);
      continue;
    }
    const current = next.value;
    if (Array.isArray(current)) {
      stack.push({ text: ']' });
      for (let i = current.length - 1; i >= 0; i--) {
        stack.push({ value: current[i] });
        if (i > 0) stack.push({ text: ',' });
      }
      out.push('[');
    } else if (current && typeof current === 'object') {
      const record = current as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((k) => record[k] !== undefined)
        .sort();
      stack.push({ text: '}' });
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        stack.push({ value: record[key] });
        stack.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(key)}:` });
      }
      out.push('{');
    } else {
      out.push(JSON.stringify(current ?? null));
    }
  }
  return out.join('');
}
