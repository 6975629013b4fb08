import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

/**
 * Run a churn script (test/support/*-churn.ts) in a child under --expose-gc --trace-gc-nvp and
 * return the KB V8 promoted to the old generation in the scavenges after it printed `churn`.
 */
function promotedKb(script: URL, mode: string): number {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', '--trace-gc-nvp', '--max-semi-space-size=4', script.pathname, mode], {
    encoding: 'utf8',
    // Coverage off (c8 sets NODE_V8_COVERAGE, and children inherit it): the child's heap is what is measured.
    env: { ...process.env, NODE_V8_COVERAGE: '' },
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  const churn = run.stdout.split('churn\n')[1] ?? '';
  const scavenges = churn.split('\n').filter((l) => l.includes('gc=s '));
  assert.ok(scavenges.length > 20, `${mode}: ${scavenges.length} scavenges during the churn`);
  return scavenges.reduce((kb, l) => kb + Number(/promoted=(\d+)/.exec(l)?.[1] ?? Number.NaN), 0) / 1024;
}

/**
 * The churn through `subject` promotes under 1 MB; through `control` (the mechanism it replaced),
 * over `controlMinKb`: the control shows the measure sees the state the subject must not fall into.
 */
export function assertOnlyControlPromotes(script: URL, control: string, controlMinKb: number, subject: string): void {
  const controlKb = promotedKb(script, control);
  const subjectKb = promotedKb(script, subject);
  assert.ok(controlKb > controlMinKb, `the control (${control}) promotes the churn: ${controlKb.toFixed(0)} KB`);
  assert.ok(subjectKb < 1_000, `${subject}: the churn promoted ${subjectKb.toFixed(0)} KB`);
}
