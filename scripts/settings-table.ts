/** Print the configuration table (src/ops/config.ts SETTINGS) as Markdown, for docs/configuration.md. */
import { settingsTable } from '../src/ops/config.ts';

console.log(settingsTable());
