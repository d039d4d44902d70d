import { Validator } from '@cfworker/json-schema';
import gitbookSpec from '@gitbook/api/spec/openapi.json';

/** A validator of one of GitBook's published component schemas (@gitbook/api 0.146.0 unless `components` is given). */
export function gitbookValidator(name: string, components: unknown = gitbookSpec.components): Validator {
  return new Validator({ $ref: `#/components/schemas/${name}`, components } as never, '2019-09', false);
}
