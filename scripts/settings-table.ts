/** Print the configuration table (src/ops/config.ts SETTINGS) as Markdown, for the README. */
import { settingsTable } from '../src/ops/config.ts';

console.log(settingsTable());
