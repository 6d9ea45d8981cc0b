/** Print rows as an aligned text table (benchmarks report figures side by side with their baseline). */
export function printTable(title: string, rows: Record<string, string | number>[]): void {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ');
  process.stdout.write(`\n${title}\n${line(columns)}\n${line(widths.map((w) => '-'.repeat(w)))}\n`);
  for (const r of rows) process.stdout.write(`${line(columns.map((c) => String(r[c] ?? '')))}\n`);
}
