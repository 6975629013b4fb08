/** The bench's table: one row per measurement, service beside its floor, and whether the target was met. */
import { fmt } from '../lib/load-stats.ts';
import type { Summary } from './measure.ts';

export interface Row {
  part: string;
  measurement: string;
  rows: string;
  conc: string;
  service: Summary | null;
  floorLabel: string;
  floor: Summary | null;
  result: string;
  target: string;
  met: boolean | null;
}

export function rawHeader(raw: string[], name: string): string | undefined {
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) return raw[i + 1];
  return undefined;
}

export function compact(n: number): string {
  if (n >= 1_000_000 && n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1000 && n % 1000 === 0) return `${n / 1000}k`;
  return n.toLocaleString('en');
}

export function renderTable(rows: Row[]): string {
  const cell = (s: Summary | null) => (s === null ? ['–', '–', '–'] : [fmt(s.p50), fmt(s.p99), fmt(s.rps, s.rps < 10 ? 1 : 0)]);
  const lines = [
    '| # | measurement | edge rows | conc | p50 ms | p99 ms | req/s | floor | floor p50 ms | floor p99 ms | floor req/s | result | target | met |',
    '|---|---|--:|--:|--:|--:|--:|---|--:|--:|--:|---|---|---|',
  ];
  for (const r of rows) {
    const mark = r.met === null ? '–' : r.met ? 'yes' : '**no**';
    lines.push(`| ${r.part} | ${r.measurement} | ${r.rows} | ${r.conc} | ${cell(r.service).join(' | ')} | ${r.floorLabel} | ${cell(r.floor).join(' | ')} | ${r.result} | ${r.target} | ${mark} |`);
  }
  return lines.join('\n');
}
