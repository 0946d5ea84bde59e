type Props = {
  id: string;
  title: string;
  lead: string;
  points: { term: string; text: string }[];
};

export function AudienceCard({ id, title, lead, points }: Props) {
  return (
    <section aria-labelledby={id} className="rounded-lg border border-slate-200 p-5">
      <h2 id={id} className="text-lg font-semibold text-slate-900">
        {title}
      </h2>
      <p className="mt-1 text-slate-600">{lead}</p>
      <ul className="mt-4 space-y-3">
        {points.map((point) => (
          <li key={point.term} className="text-sm leading-relaxed text-slate-700">
            <span className="font-medium text-slate-900">{point.term}.</span> {point.text}
          </li>
        ))}
      </ul>
    </section>
  );
}
