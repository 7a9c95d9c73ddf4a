package io.rdmaflux.codec;

/** The stage contract for {@code zstd:1}, the parallel zstd stage. */
class ZstdStageContractTest extends CodecStageContract {

    @Override
    protected CodecStage stage() {
        return new ZstdStage();
    }

    /** Record 3's type byte set to one no version writes. */
    @Override
    protected Damage damage(byte[] wire) {
        byte[] w = wire.clone();
        w[LeakTest.recordAt(w, 3, false)] = 7;
        return new Damage(w, "zstd: corrupt stream (bad record header)");
    }
}
