// A widget with hard-coded light colours (bg-white, text-black) instead of the theme's tokens.
export default function Paper() {
  return (
    <div data-testid="paper" className="h-full bg-white p-8 text-black">
      <h1 className="text-xl font-semibold">Printed on white paper</h1>
      <p className="mt-2 text-sm text-gray-600">This widget ignores the theme.</p>
    </div>
  )
}
