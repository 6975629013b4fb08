/** Print the configuration table (src/process/config.ts SETTINGS) as Markdown, for docs/configuration.md. */
import { settingsTable } from '../src/process/config.ts';

console.log(settingsTable());
