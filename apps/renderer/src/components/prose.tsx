/**
 * A host sentence as a person reads it (see model/prose): code as <code>, times local with the
 * whole moment in a title, paths from `~` and cut in the middle with the whole path in a title.
 */
import { Fragment } from 'react';
import { type ProsePiece, parseProse, proseTitle } from '../model/prose';
import { useAppStore } from '../store/store';

function Piece({ piece }: { piece: ProsePiece }) {
  if (piece.kind === 'time')
    return (
      <time dateTime={piece.iso} title={piece.title}>
        {piece.text}
      </time>
    );
  if (piece.kind === 'path')
    return (
      <span className="prose-path" title={piece.title ?? undefined}>
        {piece.text}
      </span>
    );
  return <>{piece.text}</>;
}

export function Prose({ text }: { text: string }) {
  const homeDir = useAppStore((state) => state.snapshot?.homeDir);
  return (
    <>
      {parseProse(text, { homeDir }).map((span) => {
        const pieces = span.pieces.map((piece) => <Piece key={piece.at} piece={piece} />);
        return span.code ? <code key={span.at}>{pieces}</code> : <Fragment key={span.at}>{pieces}</Fragment>;
      })}
    </>
  );
}

/** The plain-text form for a `title`, with the same home directory. */
export function useProseTitle(): (text: string) => string {
  const homeDir = useAppStore((state) => state.snapshot?.homeDir);
  return (text) => proseTitle(text, { homeDir });
}
