/** pgvector's text form of a vector; the values are plain numbers (never user text), safe as a bound parameter. */
export const vectorLiteral = (vector: readonly number[]): string =>
  `[${vector.map((v) => (Number.isFinite(v) ? v : 0)).join(',')}]`;
