package ostium.sdk;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.transfer.s3.S3TransferManager;
import software.amazon.awssdk.transfer.s3.model.CompletedCopy;
import software.amazon.awssdk.transfer.s3.model.CompletedFileDownload;
import software.amazon.awssdk.transfer.s3.model.CopyRequest;
import software.amazon.awssdk.transfer.s3.model.CompletedFileUpload;
import software.amazon.awssdk.transfer.s3.model.DownloadFileRequest;
import software.amazon.awssdk.transfer.s3.model.UploadFileRequest;

/**
 * Uploads a file to a node and downloads it back with the AWS SDK for Java
 * v2 as an application would, with the SDK's default settings, and compares
 * the bytes.
 *
 * <pre>
 * RoundTrip MODE ENDPOINT BUCKET KEY FILE
 * </pre>
 *
 * The TransferManager modes then copy the object within the bucket and
 * check the copy's size.
 *
 * MODE is {@code crt} (S3TransferManager over S3AsyncClient.crtBuilder()),
 * {@code java} (S3TransferManager over the Java-based S3AsyncClient, with
 * multipart on as the TransferManager's guide asks) or {@code sync} (the
 * synchronous S3Client's PutObject and GetObject). Credentials come from
 * AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. Only the endpoint and path
 * style are set: a node on loopback has no bucket host names.
 */
public final class RoundTrip {
    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: RoundTrip crt|java|sync ENDPOINT BUCKET KEY FILE");
            System.exit(2);
        }
        String mode = args[0];
        URI endpoint = URI.create(args[1]);
        String bucket = args[2], key = args[3];
        Path src = Path.of(args[4]);
        Path dst = Files.createTempFile("ostium-sdk-java-", ".out");
        Files.delete(dst); // the download creates it
        var creds = StaticCredentialsProvider.create(AwsBasicCredentials.create(
                System.getenv("AWS_ACCESS_KEY_ID"), System.getenv("AWS_SECRET_ACCESS_KEY")));
        long size = Files.size(src);
        long t0 = System.nanoTime();
        try {
            switch (mode) {
                case "crt" -> {
                    try (S3AsyncClient s3 = S3AsyncClient.crtBuilder().credentialsProvider(creds).region(Region.US_EAST_1)
                            .endpointOverride(endpoint).forcePathStyle(true).build()) {
                        transfer(s3, bucket, key, src, dst);
                    }
                }
                case "java" -> {
                    try (S3AsyncClient s3 = S3AsyncClient.builder().credentialsProvider(creds).region(Region.US_EAST_1)
                            .endpointOverride(endpoint).forcePathStyle(true).multipartEnabled(true).build()) {
                        transfer(s3, bucket, key, src, dst);
                    }
                }
                case "sync" -> {
                    try (S3Client s3 = S3Client.builder().credentialsProvider(creds).region(Region.US_EAST_1)
                            .endpointOverride(endpoint).forcePathStyle(true).build()) {
                        progress("PutObject %s (%d bytes)", key, size);
                        s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromFile(src));
                        progress("GetObject %s", key);
                        s3.getObject(b -> b.bucket(bucket).key(key), ResponseTransformer.toFile(dst));
                    }
                }
                default -> {
                    System.err.println("unknown mode " + mode);
                    System.exit(2);
                }
            }
            String want = sha256(src), got = sha256(dst);
            long gotSize = Files.size(dst);
            if (!want.equals(got) || gotSize != size) {
                System.err.printf("MISMATCH: sent %d bytes sha256 %s, read back %d bytes sha256 %s%n", size, want, gotSize, got);
                System.exit(1);
            }
            progress("%s: %d bytes up and down, equal (sha256 %s) in %.1f s", mode, size, want, (System.nanoTime() - t0) / 1e9);
        } finally {
            Files.deleteIfExists(dst);
        }
    }

    private static void transfer(S3AsyncClient s3, String bucket, String key, Path src, Path dst) {
        try (S3TransferManager tm = S3TransferManager.builder().s3Client(s3).build()) {
            progress("TransferManager uploadFile %s (%d bytes)", key, src.toFile().length());
            CompletedFileUpload up = tm.uploadFile(UploadFileRequest.builder()
                    .putObjectRequest(b -> b.bucket(bucket).key(key)).source(src).build()).completionFuture().join();
            progress("uploaded, ETag %s", up.response().eTag());
            progress("TransferManager downloadFile %s", key);
            CompletedFileDownload down = tm.downloadFile(DownloadFileRequest.builder()
                    .getObjectRequest(b -> b.bucket(bucket).key(key)).destination(dst).build()).completionFuture().join();
            progress("downloaded, %d bytes", down.response().contentLength());
            // A copy within the node: the TransferManager's multipart copy
            // for an object this size.
            progress("TransferManager copy %s to %s.copy", key, key);
            CompletedCopy copy = tm.copy(CopyRequest.builder().copyObjectRequest(b -> b.sourceBucket(bucket).sourceKey(key)
                    .destinationBucket(bucket).destinationKey(key + ".copy")).build()).completionFuture().join();
            long copied = s3.headObject(b -> b.bucket(bucket).key(key + ".copy")).join().contentLength();
            if (copied != src.toFile().length()) {
                throw new IllegalStateException("copy has " + copied + " bytes, want " + src.toFile().length());
            }
            progress("copied, ETag %s, %d bytes", copy.response().copyObjectResult().eTag(), copied);
        }
    }

    private static void progress(String format, Object... args) {
        System.out.printf(format + "%n", args);
        System.out.flush();
    }

    private static String sha256(Path p) throws IOException, NoSuchAlgorithmException {
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        byte[] buf = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(p)) {
            for (int n; (n = in.read(buf)) > 0; ) {
                d.update(buf, 0, n);
            }
        }
        return HexFormat.of().formatHex(d.digest());
    }
}
