/**
 * Shell completion scripts (`durable-planner completion bash|zsh|fish`), generated from the commander program itself:
 * its commands and subcommands, each command's options (the global ones included) and, for an option whose values
 * are a fixed set (its `argChoices`, see `choiceOption`), those values. A new command or option completes without
 * touching this file.
 */
import { Option, type Command } from 'commander';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** The names the package installs its bin under (package.json "bin"): both complete. */
const BIN_NAMES = ['durable-planner', 'planner'] as const;

/**
 * An option whose value is one of `values`: help prints them and the completion scripts offer them. Not commander's
 * `.choices()`, which would validate them too: the command's zod schema does that, with its own errors and hints
 * (and, for `list --stage`, case-insensitively).
 */
export function choiceOption(flags: string, description: string, values: readonly string[]): Option {
  const option = new Option(flags, description);
  option.argChoices = [...values];
  return option;
}

interface CompletionOption {
  names: string[];
  /** The program's own option, which every command takes. */
  global: boolean;
  takesValue: boolean;
  values: string[];
  description: string;
}

interface CompletionCommand {
  /** The words after the bin that name this command: [] for the program, ['dev', 'stop'] for `dev stop`. */
  path: string[];
  description: string;
  subcommands: string[];
  options: CompletionOption[];
}

/** Words go into shell scripts unquoted: only plain names, never anything a shell would read as syntax. */
function plainWord(word: string): string {
  if (!/^[A-Za-z0-9][\w.:-]*$|^--?[A-Za-z0-9][\w-]*$/.test(word)) {
    throw new Error(`cannot put "${word}" in a completion script: a command, option or value must be a plain word`);
  }
  return word;
}

function optionOf(option: Option, global = false): CompletionOption {
  return {
    global,
    names: [option.long, option.short].filter((n): n is string => n !== undefined).map(plainWord),
    takesValue: option.required || option.optional,
    values: (option.argChoices ?? []).map(plainWord),
    description: option.description,
  };
}

const HELP: CompletionOption = {
  names: ['--help', '-h'],
  global: false,
  takesValue: false,
  values: [],
  description: 'show help',
};
const VERSION: CompletionOption = {
  names: ['--version', '-V'],
  global: false,
  takesValue: false,
  values: [],
  description: "print the package's version",
};

/** Every command of the program, the program first; each lists its own options, then the program's, then --help. */
export function completionModel(program: Command): CompletionCommand[] {
  const globals = program.options.map((o) => optionOf(o, true));
  const walk = (command: Command, path: string[]): CompletionCommand[] => [
    {
      path,
      description: command.description(),
      subcommands: command.commands.map((c) => plainWord(c.name())),
      options:
        path.length === 0
          ? [...globals, VERSION, HELP]
          : [...command.options.map((o) => optionOf(o)), ...globals, HELP],
    },
    ...command.commands.flatMap((c) => walk(c, [...path, c.name()])),
  ];
  return walk(program, []);
}

export function completionScript(program: Command, shell: Shell): string {
  const model = completionModel(program);
  return shell === 'fish' ? fishScript(model) : shell === 'zsh' ? zshScript(model) : bashScript(model);
}

const FUNCTION = '_durable_planner_complete';

/**
 * The bash function: it walks the words typed so far to the command they name (skipping options and the value of an
 * option that takes one), then offers the values of the option just typed, or that command's options (when the word
 * starts with `-`) or subcommands. Plain `case` statements, so bash 3.2 (macOS) runs it too; no variable is named
 * `path`, `options` or `words`, which zsh (running it through bashcompinit) keeps for itself.
 */
function bashFunction(model: CompletionCommand[]): string {
  const key = (c: CompletionCommand) => `"${c.path.join(' ')}"`;
  const valueOptions = [
    ...new Set(model.flatMap((c) => c.options.filter((o) => o.takesValue).flatMap((o) => o.names))),
  ];
  const commandPaths = model.filter((c) => c.path.length > 0).map(key);
  // The value after an option: its fixed values, else nothing (an id, a number, a queue: no guess). A global option
  // (the program's, given to any command) is one pattern for every command.
  const label = (c: CompletionCommand, o: CompletionOption, name: string) =>
    o.global ? `*:${name}` : `"${c.path.join(' ')}:${name}"`;
  const withValues = model.flatMap((c) =>
    c.options
      .filter((o) => o.values.length > 0 && (!o.global || c.path.length === 0))
      .map((o) => {
        const labels = o.names.map((n) => label(c, o, n)).join('|');
        return `    ${labels}) COMPREPLY=($(compgen -W "${o.values.join(' ')}" -- "$cur")); return 0 ;;`;
      }),
  );
  const freeValues = [
    ...new Set(
      model.flatMap((c) =>
        c.options
          .filter((o) => o.takesValue && o.values.length === 0)
          .flatMap((o) => o.names.map((n) => label(c, o, n))),
      ),
    ),
  ];
  const valueCases = [...withValues, ...(freeValues.length > 0 ? [`    ${freeValues.join('|')}) return 0 ;;`] : [])];
  const wordCases = model.map((c) => {
    const options = c.options.flatMap((o) => o.names).join(' ');
    return `    ${key(c)}) opts="${options}"; subs="${c.subcommands.join(' ')}" ;;`;
  });
  return [
    `${FUNCTION}() {`,
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="" at="" next word i skip=0 opts="" subs=""',
    '  COMPREPLY=()',
    '  [ "$COMP_CWORD" -gt 0 ] && prev="${COMP_WORDS[COMP_CWORD-1]}"',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    word="${COMP_WORDS[i]}"',
    '    if [ "$skip" = 1 ]; then skip=0; continue; fi',
    '    case "$word" in',
    `      ${valueOptions.join('|')}) skip=1; continue ;;`,
    '      -*) continue ;;',
    '    esac',
    '    next="${at:+$at }$word"',
    '    case "$next" in',
    `      ${commandPaths.join('|')}) at="$next" ;;`,
    '    esac',
    '  done',
    '  case "$at:$prev" in',
    ...valueCases,
    '  esac',
    '  case "$at" in',
    ...wordCases,
    '  esac',
    '  case "$cur" in',
    '    -*) COMPREPLY=($(compgen -W "$opts" -- "$cur")) ;;',
    '    *) COMPREPLY=($(compgen -W "$subs" -- "$cur")) ;;',
    '  esac',
    '  return 0',
    '}',
  ].join('\n');
}

function header(shell: Shell, install: string): string {
  return [
    `# ${shell} completion for durable-planner (and its alias planner), generated by \`durable-planner completion ${shell}\`.`,
    `# Install: ${install}`,
  ].join('\n');
}

function bashScript(model: CompletionCommand[]): string {
  return [
    header('bash', 'add `source <(durable-planner completion bash)` to ~/.bashrc (docs/cli.md, Shell completion).'),
    bashFunction(model),
    `complete -F ${FUNCTION} ${BIN_NAMES.join(' ')}`,
    '',
  ].join('\n');
}

/** zsh runs the bash function through its bashcompinit emulation (COMP_WORDS, compgen, complete). */
function zshScript(model: CompletionCommand[]): string {
  return [
    header('zsh', 'add `source <(durable-planner completion zsh)` to ~/.zshrc, after compinit (docs/cli.md).'),
    'autoload -U +X bashcompinit && bashcompinit',
    bashFunction(model),
    `complete -F ${FUNCTION} ${BIN_NAMES.join(' ')}`,
    '',
  ].join('\n');
}

/** A fish single-quoted string: only \ and ' are special inside it. */
function fishQuote(text: string): string {
  return `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/** The first clause of a description, short enough for a completion menu. */
function brief(description: string): string {
  const first = description.split(/[:;(]/)[0]!.trim();
  return first.length > 70 ? `${first.slice(0, 69)}…` : first;
}

/**
 * fish: `complete` lines for both bin names, each under the condition that the words typed so far name its command
 * (`__fish_seen_subcommand_from`) and none of that command's subcommands.
 */
function fishScript(model: CompletionCommand[]): string {
  const condition = (command: CompletionCommand) =>
    command.path.length === 0
      ? '__fish_use_subcommand'
      : [
          ...command.path.map((word) => `__fish_seen_subcommand_from ${word}`),
          ...(command.subcommands.length > 0
            ? [`not __fish_seen_subcommand_from ${command.subcommands.join(' ')}`]
            : []),
        ].join('; and ');
  const lines = model.flatMap((command) => {
    const when = fishQuote(condition(command));
    const subcommands = command.subcommands.map((sub) => {
      const child = model.find((c) => c.path.join(' ') === [...command.path, sub].join(' '))!;
      return `  complete -c $bin -f -n ${when} -a ${sub} -d ${fishQuote(brief(child.description))}`;
    });
    const options = command.options.map((option) => {
      const names = option.names.map((n) => (n.startsWith('--') ? `-l ${n.slice(2)}` : `-s ${n.slice(1)}`)).join(' ');
      const value = !option.takesValue
        ? ''
        : option.values.length > 0
          ? ` -x -a ${fishQuote(option.values.join(' '))}`
          : ' -x';
      return `  complete -c $bin -n ${when} ${names}${value} -d ${fishQuote(brief(option.description))}`;
    });
    return [...subcommands, ...options];
  });
  return [
    header('fish', 'durable-planner completion fish > ~/.config/fish/completions/durable-planner.fish (docs/cli.md).'),
    `for bin in ${BIN_NAMES.join(' ')}`,
    '  complete -c $bin -f',
    ...lines,
    'end',
    '',
  ].join('\n');
}
