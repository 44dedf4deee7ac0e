// helmfile files are Go templates; these helpers let the YAML parser read them.

/**
 * helmfile files are Go templates. Lines that are only template actions (`{{ if }}`, `{{ end }}`) are blanked, so
 * both branches are read; each other `{{ ... }}` becomes a plain token (`.Release.Name` and `.Release.Namespace`
 * keep their meaning for hook arguments). Line numbers are unchanged.
 */
export function stripTemplates(text: string): { text: string; templated: boolean } {
  let templated = false;
  const out = text.split('\n').map((line) => {
    if (!line.includes('{{')) return line;
    templated = true;
    if (/^\s*(\{\{-?[\s\S]*?-?\}\}\s*)+$/.test(line)) return '';
    return line
      .replace(/\{\{-?\s*\.Release\.Name\s*-?\}\}/g, '__tpl_release_name__')
      .replace(/\{\{-?\s*\.Release\.Namespace\s*-?\}\}/g, '__tpl_release_namespace__')
      .replace(/\{\{-?[\s\S]*?-?\}\}/g, '__tpl__');
  });
  return { text: out.join('\n'), templated };
}
