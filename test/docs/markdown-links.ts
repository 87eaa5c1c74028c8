import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The repository root, where README.md lives. */
export const repoRoot = resolve(import.meta.dirname, '../..');

/** README.md and every Markdown file under docs/ (the generated API reference excluded). */
export function userDocs(root = repoRoot): string[] {
  const files = [join(root, 'README.md')];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'api') walk(path);
      } else if (name.endsWith('.md')) files.push(path);
    }
  };
  walk(join(root, 'docs'));
  return files;
}

/** The lines of a Markdown text outside fenced code blocks, with inline code blanked out. */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, '``');
  });
}

/** GitHub's anchor for a heading text: lowercase, punctuation dropped, spaces as hyphens. */
export function githubSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown text offers: its headings (numbered as GitHub numbers repeats) and ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      const slug = githubSlug(heading[1] ?? '');
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1] ?? '');
  }
  return anchors;
}

/** The broken relative links of one Markdown file: a missing file, or an anchor nobody offers. */
export function brokenLinks(file: string, markdown = readFileSync(file, 'utf8')): string[] {
  const broken: string[] = [];
  const here = relative(repoRoot, file);
  prose(markdown).forEach((line, index) => {
    for (const match of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path = '', anchor] = target.split('#');
      const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      const where = `${here}:${index + 1}: ${target}`;
      if (resolved !== file && !existsSync(resolved)) broken.push(`${where} (no such file)`);
      else if (anchor !== undefined && (resolved === file || !statSync(resolved).isDirectory())) {
        const text = resolved === file ? markdown : readFileSync(resolved, 'utf8');
        if (!anchorsOf(text).has(anchor)) broken.push(`${where} (no such anchor)`);
      }
    }
  });
  return broken;
}
