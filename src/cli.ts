// The local CLI's entry: dist/cli.js runs this.
import { main } from './cli/main.js';

process.exitCode = await main(process.argv.slice(2));
