import type { CheckReceiverReport } from '../testing/check-receiver.js';

const xml = (text: string) =>
  text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!,
  );

/** A `check-receiver` report as JUnit XML, the format CI systems (GitHub, GitLab, Jenkins) display. */
export function junitReport(report: CheckReceiverReport, suite: string): string {
  const cases = report.cases.map((result) => {
    const open = `    <testcase classname="${xml(suite)}" name="${xml(result.name)}">`;
    if (result.pass) return `${open}</testcase>`;
    const message = `expected ${result.expected}; observed ${result.observed}`;
    return `${open}\n      <failure message="${xml(message)}">${xml(`${message}\nfix: ${result.fix ?? ''}`)}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${report.cases.length}" failures="${report.failed}">`,
    `  <testsuite name="${xml(suite)}" tests="${report.cases.length}" failures="${report.failed}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
