// Shard 1 of the adversarial suite: see test/helpers/adversarial.ts.
import { attackShard } from '../helpers/adversarial';

await attackShard(1);
