// Package instancetypes is the cloud layer of nodeplan's three layers of
// constraints: the machines a plan may launch, what each offers (capacity,
// allocatable after overhead, labels), and where and at what price it can be
// bought (offerings: zone, capacity type, price, availability, reservations).
//
// A [Catalog] is an ordered, validated list of instance types with the
// lookups the solver needs, precomputed once: each type's requirements and
// allocatable, and its offerings sorted cheapest first, so
// [InstanceType.CheapestOffering], [Compatible] and [Catalog.Filter] do not
// allocate per type. Any source that yields instance types can build one
// ([NewCatalog]). [Decode] reads the catalog JSON format of
// docs/CATALOG.md with a reflection-free reader that reports every
// error at once, each naming the instance type and field; [Encode] writes
// the format back, one instance type per line. A catalog may name the
// provider whose label vocabulary it uses ([WithProvider], [WithVocabulary]).
// A provider edits the decoded types before validation with
// [WithTransform]; the built-in AWS catalog in instancetypes/aws does so.
//
// Flow: instancetypes sits on requirements; binpack and scheduler consume it.
// It opens no files and knows nothing of pods or NodePools.
package instancetypes
