// Bundled into dist/index.js, which action.yml runs.
import { main } from './main.js';

main();
