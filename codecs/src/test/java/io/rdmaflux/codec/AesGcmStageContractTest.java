package io.rdmaflux.codec;

/** The stage contract for {@code aes-256-gcm:1}. */
class AesGcmStageContractTest extends CodecStageContract {

    @Override
    protected CodecStage stage() {
        return new AesGcmStage();
    }

    /** One bit of record 3's ciphertext flipped. */
    @Override
    protected Damage damage(byte[] wire) {
        byte[] w = wire.clone();
        w[LeakTest.recordAt(w, 3, true) + AesGcmStage.HEADER + 7] ^= 1;
        return new Damage(w, "aes-256-gcm: record #3 failed authentication: the data was altered");
    }
}
