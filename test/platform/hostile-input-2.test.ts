// Shard 2 of the hostile-input sweep: see test/helpers/hostile-sweep.ts.
import { sweepHostileInput } from '../helpers/hostile-sweep';

await sweepHostileInput(2);
