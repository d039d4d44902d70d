/**
 * GitBook's block tags (`{% hint style="info" %}`, `{% endhint %}`, `{% embed url="..." %}`,
 * `{% @mermaid/diagram content="..." %}`) as a micromark flow construct: a line holding one tag and
 * nothing else becomes a `gitbookLiquidTag` node. Being a flow construct, a tag line interrupts a
 * paragraph and ends a lazy list item or quote continuation, as GitBook reads it; inside fenced code
 * or HTML it is never tried, so a tag shown in a code sample stays text. Pairing an opening tag with its
 * `end` tag is done on the tree (`pairTags` in tags.ts), where siblings are known.
 */
import type { Extension as FromMarkdownExtension, CompileContext, Token as MdastToken } from 'mdast-util-from-markdown';
import type { Code, Construct, Effects, Extension, State, TokenizeContext } from 'micromark-util-types';

/** The mdast node of one tag line; `value` is its source from `{%` to `%}`. */
export interface LiquidTagNode {
  type: 'gitbookLiquidTag';
  value: string;
  position?: { start: { line: number; column: number; offset?: number }; end: { line: number; column: number; offset?: number } };
}

/** No tag is longer than this: a line of 64 KiB of `{%` without its `%}` is read once, not re-scanned. */
const MAX_TAG_LENGTH = 65_536;

const LEFT_BRACE = 123;
const PERCENT = 37;
const RIGHT_BRACE = 125;

const isLineEnding = (code: Code) => code !== null && code < -2;
const isSpaceOrTab = (code: Code) => code === -2 || code === -1 || code === 32;

function tokenizeLiquidTag(this: TokenizeContext, effects: Effects, ok: State, nok: State): State {
  let length = 0;
  return start;

  function start(code: Code): State | undefined {
    if (code !== LEFT_BRACE) return nok(code);
    effects.enter('gitbookLiquidTag' as never);
    effects.consume(code);
    return afterBrace;
  }
  function afterBrace(code: Code): State | undefined {
    if (code !== PERCENT) return nok(code);
    effects.consume(code);
    return inside;
  }
  function inside(code: Code): State | undefined {
    if (code === null || isLineEnding(code) || ++length > MAX_TAG_LENGTH) return nok(code);
    effects.consume(code);
    return code === PERCENT ? afterPercent : inside;
  }
  function afterPercent(code: Code): State | undefined {
    if (code !== RIGHT_BRACE) return inside(code);
    effects.consume(code);
    effects.exit('gitbookLiquidTag' as never);
    return trailing;
  }
  // Only whitespace may follow the tag on its line: `{% hint %} text` is a paragraph.
  function trailing(code: Code): State | undefined {
    if (isSpaceOrTab(code)) {
      effects.enter('whitespace' as never);
      return whitespace(code);
    }
    return code === null || isLineEnding(code) ? ok(code) : nok(code);
  }
  function whitespace(code: Code): State | undefined {
    if (isSpaceOrTab(code)) {
      effects.consume(code);
      return whitespace;
    }
    effects.exit('whitespace' as never);
    return code === null || isLineEnding(code) ? ok(code) : nok(code);
  }
}

const liquidTagConstruct: Construct = { name: 'gitbookLiquidTag', tokenize: tokenizeLiquidTag };

/** The micromark syntax extension. */
export const liquidTagSyntax: Extension = { flow: { [LEFT_BRACE]: liquidTagConstruct } };

/** The mdast-util-from-markdown extension that turns the token into a `gitbookLiquidTag` node. */
export const liquidTagFromMarkdown: FromMarkdownExtension = {
  enter: {
    gitbookLiquidTag(this: CompileContext, token: MdastToken) {
      this.enter({ type: 'gitbookLiquidTag', value: this.sliceSerialize(token) } as never, token);
    },
  },
  exit: {
    gitbookLiquidTag(this: CompileContext, token: MdastToken) {
      this.exit(token);
    },
  },
};
