import { autocompletion } from "@codemirror/autocomplete";
import { sql, SQLite, PostgreSQL } from "@codemirror/lang-sql";
import { yaml } from "@codemirror/lang-yaml";
import { EditorState, Compartment } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { basicSetup } from "codemirror";
import { useEffect, useRef } from "preact/hooks";
import { errorProps } from "./components.tsx";

/**
 * A CodeMirror 6 editor: SQL (with the manifest's tables and columns for completion) or YAML
 * (read-only, for the manifest's text). Its content carries the label a screen reader announces.
 */
export function CodeEditor({
  value,
  onChange,
  language,
  label,
  id,
  readOnly = false,
  schema,
  database = "sqlite",
  error,
}: {
  value: string;
  onChange?: (value: string) => void;
  language: "sql" | "yaml";
  label: string;
  id?: string;
  readOnly?: boolean;
  schema?: Record<string, string[]>;
  database?: string;
  /** The message of a check the text fails (its FieldError is `<id>-error`). */
  error?: string | undefined;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | undefined>(undefined);
  const changed = useRef(onChange);
  changed.current = onChange;
  const languageSlot = useRef(new Compartment());
  /** The content's attributes: its label and, while `error` holds, errorProps as every other control has them. */
  const attributesSlot = useRef(new Compartment());
  const attributes = () => {
    const tied = id === undefined ? {} : errorProps(id, error);
    const asText = Object.fromEntries(Object.entries(tied).map(([name, value]) => [name, String(value)]));
    return EditorView.contentAttributes.of({ "aria-label": label, ...(id && { id }), ...asText });
  };
  /** The text the editor last said it holds: a value other than it comes from outside (a reload, a discard). */
  const emitted = useRef(value);
  const external = useRef(false);

  useEffect(() => {
    const languageSupport =
      language === "sql" ? sql({ dialect: database === "postgresql" ? PostgreSQL : SQLite, schema }) : yaml();
    const state = EditorState.create({
      doc: value,
      extensions: [
        basicSetup,
        // Completions without their icons: symbols the system fonts may not have.
        autocompletion({ icons: false }),
        languageSlot.current.of(languageSupport),
        EditorView.lineWrapping,
        EditorState.readOnly.of(readOnly),
        EditorView.editable.of(!readOnly),
        attributesSlot.current.of(attributes()),
        EditorView.updateListener.of((update) => {
          if (!update.docChanged || external.current) return;
          emitted.current = update.state.doc.toString();
          changed.current?.(emitted.current);
        }),
      ],
    });
    view.current = new EditorView({ state, parent: host.current! });
    return () => view.current?.destroy();
    // The editor is made once; its value and schema follow below.
  }, [readOnly, label]);

  // A value from outside replaces the text, at render: never an older value of the user's own typing,
  // which an effect running after a newer keystroke would put back.
  const current = view.current;
  if (current && value !== emitted.current) {
    emitted.current = value;
    if (current.state.doc.toString() !== value) {
      external.current = true;
      current.dispatch({ changes: { from: 0, to: current.state.doc.length, insert: value } });
      external.current = false;
    }
  }

  useEffect(() => {
    if (language !== "sql" || !view.current) return;
    view.current.dispatch({
      effects: languageSlot.current.reconfigure(
        sql({ dialect: database === "postgresql" ? PostgreSQL : SQLite, schema }),
      ),
    });
  }, [JSON.stringify(schema), database]);

  useEffect(() => {
    view.current?.dispatch({ effects: attributesSlot.current.reconfigure(attributes()) });
  }, [error, id]);

  return <div class={`code-editor${error ? " invalid" : ""}`} ref={host} />;
}
