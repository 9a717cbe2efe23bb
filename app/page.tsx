export const dynamic = 'force-dynamic';
export default function Overview() {
  return <p>overview</p>;
}
