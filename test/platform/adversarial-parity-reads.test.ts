// The content reads of issue 44 (OWN_FILES['parity-reads']), attacked by every foreign caller and the reader: see
// test/helpers/adversarial.ts. The shards leave them out.
import { attackOwnFile } from '../helpers/adversarial';

await attackOwnFile('parity-reads');
