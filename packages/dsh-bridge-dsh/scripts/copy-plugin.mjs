// Copies the bundled plugin (built by `npm run build` at the repository root) into this package.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const built = join(here, '..', '..', 'dist', 'dsh-plugin.js');
if (!existsSync(built)) {
  console.error(`dsh-bridge-dsh: ${built} is missing: run "npm run build" at the repository root first`);
  process.exit(1);
}
mkdirSync(join(here, 'dist'), { recursive: true });
copyFileSync(built, join(here, 'dist', 'dsh-plugin.js'));
