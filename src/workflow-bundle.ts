/**
 * The planner's workflow bundle made small in the worker's memory. Every worker holds the bundle's text, with its
 * inline source map, more than once (the code it read or built, the copy the SDK patches, the workflow thread's
 * copy, the parsed map). Two things made each copy of the planner's 7.3 MB, against 3.3 MB for a raw Temporal bundle:
 *   - the source map carried every bundled file's full source (`sourcesContent`, 1.2 M characters): stack traces
 *     need only the mappings, so the map keeps file, line and column and leaves the sources on disk;
 *   - a handful of characters above U+00FF (arrows, dashes, ellipses in strings and comments, ours and zod's) made
 *     V8 hold the whole text two bytes per character: they are written as `\uXXXX` escapes, which mean the same
 *     character in a string, template, regular expression or comment, so the text is one byte per character.
 * Measured on the bench's planner worker: its heap's large-object space went from 18 MB to 5.6 MB.
 */
import type { BundleOptions } from '@temporalio/worker';

export type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
type PluginFunction = Extract<NonNullable<WebpackConfig['plugins']>[number], (...args: never[]) => void>;
type Compiler = Parameters<PluginFunction>[0];

/** Each character above U+00FF, in UTF-16 code units (a character beyond the BMP is two, each escaped). */
const WIDE_CHARACTER = /[^\u0000-\u00ff]/g;

/** `\uXXXX` for one UTF-16 code unit. */
export function unicodeEscape(codeUnit: string): string {
  return `\\u${codeUnit.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * Rewrites the emitted JavaScript with its wide characters escaped, before the source map is made (webpack's
 * dev-tooling stage comes after), so the map still points at the right columns.
 */
function escapeWideCharacters(compiler: Compiler): void {
  const { Compilation, sources } = compiler.webpack;
  compiler.hooks.thisCompilation.tap('EscapeWideCharacters', (compilation) => {
    compilation.hooks.processAssets.tap(
      { name: 'EscapeWideCharacters', stage: Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_SIZE },
      (assets) => {
        for (const [name, asset] of Object.entries(assets)) {
          if (!name.endsWith('.js')) continue;
          const escaped = new sources.ReplaceSource(asset);
          for (const m of asset.source().toString().matchAll(WIDE_CHARACTER))
            escaped.replace(m.index!, m.index!, unicodeEscape(m[0]));
          compilation.updateAsset(name, escaped);
        }
      },
    );
  });
}

/** The SDK's webpack configuration with the map's sources left out and wide characters escaped. */
export function slimWorkflowBundle(config: WebpackConfig): WebpackConfig {
  return {
    ...config,
    devtool: 'inline-nosources-source-map',
    plugins: [...(config.plugins ?? []), escapeWideCharacters],
  };
}
