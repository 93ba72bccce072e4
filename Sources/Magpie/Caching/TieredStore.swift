/// The local store in front of a shared one: reads try the local store first and keep what
/// the shared one has; writes go to both (the shared one in the background). Either half of
/// the pipeline's stores (originals, variants) can be tiered, as ``SharedStore/keeps`` says.
final class TieredStore: OriginalStoring, VariantStoring {
    private let near: (any DataCaching)?
    private let far: any OriginalStoring & VariantStoring

    init(near: (any DataCaching)?, far: any OriginalStoring & VariantStoring) {
        self.near = near
        self.far = far
    }

    func entry(for key: String) async -> CachedData? {
        if let hit = await near?.entry(for: key) { return hit }
        guard var shared = await far.entry(for: key) else { return nil }
        near?.store(shared)
        shared.isShared = true
        return shared
    }

    func containsEntry(for key: String) async -> Bool {
        if await near?.containsEntry(for: key) == true { return true }
        return await far.containsEntry(for: key)
    }

    func store(_ entry: CachedData) {
        near?.store(entry)
        far.store(entry)
    }

    func removeEntry(for key: String) async {
        await near?.removeEntry(for: key)
        await far.removeEntry(for: key)
    }

    func variantEntry(for key: String, variant: String) async -> CachedData? {
        if let hit = await near?.variantEntry(for: key, variant: variant) { return hit }
        guard var shared = await far.variantEntry(for: key, variant: variant) else { return nil }
        near?.storeVariant(shared.data, for: key, variant: variant, metadata: shared.metadata)
        shared.isShared = true
        return shared
    }

    func containsVariant(for key: String, variant: String) async -> Bool {
        if await near?.containsVariant(for: key, variant: variant) == true { return true }
        return await far.containsVariant(for: key, variant: variant)
    }

    func storeVariant(_ bytes: [UInt8], for key: String, variant: String, metadata: HTTPMetadata) {
        near?.storeVariant(bytes, for: key, variant: variant, metadata: metadata)
        far.storeVariant(bytes, for: key, variant: variant, metadata: metadata)
    }

    func removeVariant(for key: String, variant: String) async {
        await near?.removeVariant(for: key, variant: variant)
        await far.removeVariant(for: key, variant: variant)
    }

    func removeVariants(of key: String) async {
        await near?.removeVariants(of: key)
        await far.removeVariants(of: key)
    }

    func flush() async {
        await near?.flush()
        await far.flush()
    }
}
