#!/bin/bash
# The shell pipeline from issue 3, on loopback: zstd | openssl enc | nc  ->  nc | openssl enc -d | zstd -d
f=$1; port=$2
nc -l 127.0.0.1 $port | openssl enc -d -aes-256-ctr -pass pass:x -pbkdf2 | zstd -d -q -c > /dev/null &
recv=$!
sleep 0.3
start=$(date +%s.%N)
zstd -1 -T2 -q -c "$f" | openssl enc -aes-256-ctr -pass pass:x -pbkdf2 | nc -N 127.0.0.1 $port
wait $recv
end=$(date +%s.%N)
echo "shell over nc: $(echo "$end - $start" | bc) s"
